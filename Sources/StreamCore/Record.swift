/// A publisher that allows for recording a series of inputs and a completion, for later
/// playback to each subscriber.
///
/// ```swift
/// let record = Record<Int, Never> { recording in
///   recording.receive(1)
///   recording.receive(2)
///   recording.receive(completion: .finished)
/// }
/// let cancellable = record.sink { print($0) }  // prints 1, then 2
/// ```
///
/// Each subscriber receives the recorded outputs as it requests them, never more than it has
/// requested, and the recorded completion straight after the last output, without waiting for
/// further demand. A recording with no outputs hands the subscriber ``Subscriptions/empty`` and
/// its completion at once. Otherwise the subscription describes itself as the recorded outputs
/// (`"[1, 2]"`), as Combine's does.
///
/// > Thread safety: A value type; `subscribe` may be called from any thread. Outputs are
/// > delivered on the thread that requests them, one call at a time; a request made from inside
/// > `receive(_:)` is served by the loop already delivering, so demanding one value at a time
/// > doesn't grow the stack. `request(_:)` and `cancel()` are safe from any thread.
public struct Record<Output, Failure: Error>: Publisher {
  /// The recorded output and completion.
  public let recording: Recording

  /// Creates a publisher to interactively record a series of outputs and a completion.
  ///
  /// Recording stops at the completion. Without an explicit completion, the recording
  /// finishes normally.
  ///
  /// - Parameter record: A recording instance that can be used to record outputs and a
  ///   completion.
  public init(record: (inout Recording) -> Void) {
    var recording = Recording()
    record(&recording)
    self.recording = recording
  }

  /// Creates a record publisher from an existing recording.
  ///
  /// - Parameter recording: A previously-recorded recording of published elements.
  public init(recording: Recording) {
    self.recording = recording
  }

  /// Creates a record publisher to publish the provided elements, followed by the provided
  /// completion value.
  ///
  /// - Parameters:
  ///   - output: An array of output elements to publish.
  ///   - completion: The completion value with which to end publishing.
  public init(output: [Output], completion: Subscribers.Completion<Failure>) {
    self.init(recording: Recording(output: output, completion: completion))
  }

  /// Hands `subscriber` a subscription that replays ``recording``.
  ///
  /// - Parameter subscriber: The subscriber to attach to this publisher.
  public func receive<S: Subscriber>(subscriber: S)
  where S.Input == Output, S.Failure == Failure {
    if recording.output.isEmpty {
      subscriber.receive(subscription: Subscriptions.empty)
      subscriber.receive(completion: recording.completion)
    } else {
      subscriber.receive(subscription: Inner(downstream: subscriber, recording: recording))
    }
  }
}

extension Record: Sendable where Output: Sendable {}

extension Record {
  /// A recorded sequence of outputs, followed by a completion value.
  ///
  /// ```swift
  /// var recording = Record<Int, Never>.Recording()
  /// recording.receive(1)
  /// recording.receive(completion: .finished)
  /// recording.receive(2)  // traps: the recording is complete
  /// ```
  ///
  /// A recording is open until it receives a completion; after that, recording anything else
  /// traps. An open recording reports ``Subscribers/Completion/finished`` as its completion.
  ///
  /// > Thread safety: A value type.
  public struct Recording {
    /// The type of the input.
    public typealias Input = Output

    /// Whether `receive(completion:)` has been called, or the recording was made complete.
    private var isComplete = false

    /// The output which will be sent to a subscriber.
    public private(set) var output: [Output]

    /// The completion which will be sent to a subscriber.
    public private(set) var completion: Subscribers.Completion<Failure>

    /// Creates a new, empty recording, ready to record.
    public init() {
      output = []
      completion = .finished
    }

    /// Creates a complete recording with the given output and completion.
    ///
    /// - Parameters:
    ///   - output: The output to record.
    ///   - completion: The completion to record.
    public init(output: [Output], completion: Subscribers.Completion<Failure> = .finished) {
      self.output = output
      self.completion = completion
      isComplete = true
    }

    /// Records an output.
    ///
    /// Traps if the recording already has a completion.
    ///
    /// - Parameter input: The output to record.
    public mutating func receive(_ input: Input) {
      precondition(
        !isComplete,
        "Record.Recording.receive(_:): an output was recorded after the completion"
      )
      output.append(input)
    }

    /// Records a completion, after which the recording accepts nothing else.
    ///
    /// Traps if the recording already has a completion.
    ///
    /// - Parameter completion: The completion to record.
    public mutating func receive(completion: Subscribers.Completion<Failure>) {
      precondition(
        !isComplete,
        "Record.Recording.receive(completion:): a second completion was recorded"
      )
      self.completion = completion
      isComplete = true
    }
  }
}

extension Record.Recording: Sendable where Output: Sendable {}

extension Record.Recording: Codable where Output: Codable, Failure: Codable {
  /// Decodes a complete recording, encoded as its `output` and its `completion`.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: RecordingCodingKeys.self)
    self.init(
      output: try container.decode([Output].self, forKey: .output),
      completion: try container.decode(Subscribers.Completion<Failure>.self, forKey: .completion)
    )
  }

  /// Encodes the recording as its `output` and its `completion`.
  public func encode(to encoder: any Encoder) throws {
    try encode(into: encoder)
  }
}

extension Record.Recording where Output: Encodable, Failure: Encodable {
  /// Encodes the recording as its `output` and its `completion`, as ``encode(to:)`` does; Combine
  /// offers it for recordings whose values and failure are only `Encodable`.
  ///
  /// - Parameter encoder: The encoder to write to.
  /// - Throws: The encoder's error.
  public func encode(into encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: RecordingCodingKeys.self)
    try container.encode(output, forKey: .output)
    try container.encode(completion, forKey: .completion)
  }
}

/// The keys of an encoded recording.
private enum RecordingCodingKeys: String, CodingKey {
  case output
  case completion
}

extension Record: Codable where Output: Codable, Failure: Codable {
  private enum CodingKeys: String, CodingKey {
    case recording
  }

  /// Decodes a record publisher, encoded as its `recording`.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    self.init(recording: try container.decode(Recording.self, forKey: .recording))
  }

  /// Encodes the record publisher as its `recording`.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(recording, forKey: .recording)
  }
}

extension Record {
  // Sendable: all mutable state is guarded by `lock`; the downstream is called outside the
  // lock, only by the thread that claimed the drain.
  private final class Inner<Downstream: Subscriber>: Subscription, CustomStringConvertible,
    CustomReflectable, CustomPlaygroundDisplayConvertible, @unchecked Sendable
  where Downstream.Input == Output, Downstream.Failure == Failure {
    /// ```
    /// active --request(_:)--> active (draining: the requesting thread delivers while demand
    ///                                  lasts; a request made meanwhile only adds demand)
    /// active --last output delivered--> terminal (sends the completion)
    /// active --cancel()--> terminal
    /// ```
    private enum State {
      case active(Active)
      case terminal
    }

    private struct Active {
      var downstream: Downstream
      var recording: Recording
      var index = 0
      var demand = Subscribers.Demand.none
      /// Claimed by the requesting thread that delivers.
      var drain = SerialDrain()
    }

    /// What the delivering thread does next, outside the lock.
    private enum DrainStep {
      case send(Downstream, Output)
      /// The last output was delivered: the completion, then the released state.
      case complete(Active)
    }

    private let lock = Lock()
    private var state: State
    /// The recording's completion, which the mirror shows also after the end, as Combine's
    /// (OpenCombine's `RecordTests.testRecordNoInitialDemand`).
    private let completion: Subscribers.Completion<Failure>

    init(downstream: Downstream, recording: Recording) {
      state = .active(Active(downstream: downstream, recording: recording))
      completion = recording.completion
    }

    func request(_ demand: Subscribers.Demand) {
      guard demand > .none else { return }  // Combine ignores request(.none) here
      let startsDraining = lock.withLock { () -> Bool in
        guard case .active(var active) = state else { return false }
        active.demand += demand
        let starts = active.drain.claim()
        state = .active(active)
        return starts
      }
      if startsDraining {
        drain()
      }
    }

    /// Delivers outputs while there is demand; run by one thread at a time.
    private func drain() {
      var extra = Subscribers.Demand.none
      SerialDrain.run(lock) {
        nextStep(adding: extra)
      } perform: { step in
        switch step {
        case .send(let downstream, let output):
          extra = downstream.receive(output)
          return true
        case .complete(let released):
          released.downstream.receive(completion: released.recording.completion)
          return false
        }
      }
    }

    /// The drain's next step; under the lock. `nil` after releasing the drain, or once terminal.
    private func nextStep(adding extra: Subscribers.Demand) -> DrainStep? {
      guard case .active(var active) = state else { return nil }
      active.demand += extra
      let output = active.recording.output
      if active.index == output.endIndex {
        state = .terminal
        return .complete(active)
      }
      guard active.demand > .none else {
        active.drain.release()
        state = .active(active)
        return nil
      }
      active.demand -= 1
      active.index += 1
      state = .active(active)
      return .send(active.downstream, output[active.index - 1])
    }

    func cancel() {
      let released = lock.withLock { () -> Active? in
        guard case .active(let active) = state else { return nil }
        state = .terminal
        return active
      }
      _ = released
    }

    /// As Combine's: the recorded outputs; `"Cancelled Events"` once the subscription ended.
    var description: String {
      guard let recording = activeRecording else { return "Cancelled Events" }
      return String(describing: recording.output)
    }

    /// As Combine's: the recorded outputs (`sequence`) and the `completion`; once the
    /// subscription ended, no outputs (it let go of the recording) and the completion.
    var customMirror: Mirror {
      guard let recording = activeRecording else {
        return Mirror(self, children: ["sequence": [Output](), "completion": completion])
      }
      return Mirror(
        self,
        children: ["sequence": recording.output, "completion": recording.completion]
      )
    }

    /// The recording while the subscription is active.
    private var activeRecording: Recording? {
      lock.withLock { () -> Recording? in
        guard case .active(let active) = state else { return nil }
        return active.recording
      }
    }

    var playgroundDescription: Any { description }
  }
}
