public import StreamCore

/// A subscriber that stamps everything it receives with the virtual instant, and writes what
/// it saw as a marble line.
///
/// ```swift
/// let scheduler = TestScheduler()
/// let recorder = MarbleRecorder<String, Never>(scheduler: scheduler)
/// scheduler.hot("-a--b|").subscribe(recorder)
/// scheduler.run()
/// recorder.rendered()  // "-a--b|"
/// ```
///
/// Frame 0 is the scheduler's ``TestScheduler/now`` when the recorder was made, and a frame is
/// the scheduler's ``TestScheduler/marbleFrame`` at that time. Demand and contract checks are a
/// ``RecordingSubscriber``'s: it requests `initialDemand` when the subscription arrives, and
/// ``violations`` lists what the publisher did wrong.
///
/// > Thread safety: Every method may be called from any thread. No lock is held while the
/// > subscription is called.
// Sendable: the records are behind `records`' lock; everything else is immutable or Sendable.
public final class MarbleRecorder<Input, Failure: Error>: Subscriber, Cancellable,
  @unchecked Sendable
{
  /// One event and the instant it arrived.
  ///
  /// ```swift
  /// recorder.records.map(\.time)  // [VirtualTime(1), VirtualTime(4)]
  /// ```
  ///
  /// > Thread safety: A value type; it is `Sendable` when `Input` is.
  public struct Record {
    /// When the event arrived.
    public var time: VirtualTime

    /// What arrived.
    public var event: MarbleTimeline<Input, Failure>.Event
  }

  /// The instant of frame 0.
  public let origin: VirtualTime

  /// The length of one frame.
  public let frame: VirtualTime.Stride

  private let scheduler: VirtualTimeScheduler
  private let recorder: RecordingSubscriber<Input, Failure>
  private let recorded = LockedState<[Record]>([])

  /// Creates a recorder whose frame 0 is the scheduler's current instant.
  ///
  /// > Thread safety: May be called from any thread.
  ///
  /// - Parameters:
  ///   - scheduler: The scheduler whose clock stamps the events.
  ///   - initialDemand: Requested when the subscription arrives; `nil` or `.none` requests
  ///     nothing, so the test calls ``request(_:)``.
  public init(scheduler: VirtualTimeScheduler, initialDemand: Subscribers.Demand? = .unlimited) {
    self.scheduler = scheduler
    origin = scheduler.now
    frame = scheduler.marbleFrame
    recorder = RecordingSubscriber(initialDemand: initialDemand)
  }

  /// Every value and completion received, with its instant, in order.
  public var records: [Record] {
    recorded.withLock { $0 }
  }

  /// What was received, by frame (an event between two frames is in the earlier one).
  public var timeline: MarbleTimeline<Input, Failure> {
    let clock = MarbleClock(origin: origin, frame: frame)
    return MarbleTimeline(
      entries: records.map { .init(frame: clock.frame(of: $0.time), event: $0.event) }
    )
  }

  /// Where the publisher broke the subscriber contract, as ``RecordingSubscriber/violations``.
  public var violations: [String] {
    recorder.violations
  }

  /// Records the subscription and requests `initialDemand`.
  ///
  /// > Thread safety: May be called from any thread.
  ///
  /// - Parameter subscription: The subscription to record.
  public func receive(subscription: any Subscription) {
    recorder.receive(subscription: subscription)
  }

  /// Records the value with the current instant.
  ///
  /// > Thread safety: May be called from any thread.
  ///
  /// - Parameter input: The value to record.
  /// - Returns: `.none`; ask for more with ``request(_:)``.
  public func receive(_ input: Input) -> Subscribers.Demand {
    let now = scheduler.now
    recorded.withLock { $0.append(Record(time: now, event: .value(input))) }
    return recorder.receive(input)
  }

  /// Records the completion with the current instant.
  ///
  /// > Thread safety: May be called from any thread.
  ///
  /// - Parameter completion: The completion to record.
  public func receive(completion: Subscribers.Completion<Failure>) {
    let now = scheduler.now
    recorded.withLock { $0.append(Record(time: now, event: .completion(completion))) }
    recorder.receive(completion: completion)
  }

  /// Requests `demand` more values; does nothing before the subscription or after the end.
  ///
  /// > Thread safety: May be called from any thread.
  ///
  /// - Parameter demand: How many more values to request; greater than zero.
  public func request(_ demand: Subscribers.Demand) {
    recorder.request(demand)
  }

  /// Cancels the subscription. Idempotent.
  ///
  /// > Thread safety: May be called from any thread.
  public func cancel() {
    recorder.cancel()
  }
}

extension MarbleRecorder where Input: Equatable {
  /// What was received, as a marble line whose values are written with `values`' keys.
  ///
  /// ```swift
  /// recorder.rendered(values: ["a": 1, "b": 2])  // "-a--b|"
  /// ```
  ///
  /// > Thread safety: May be called from any thread.
  ///
  /// - Parameter values: The value each character stands for; a value not in it is written as
  ///   its one-character description, or `?`.
  /// - Returns: The marble line.
  public func rendered(values: [Character: Input] = [:]) -> String {
    timeline.rendered(values: values)
  }
}

extension MarbleRecorder.Record: Sendable where Input: Sendable {}
