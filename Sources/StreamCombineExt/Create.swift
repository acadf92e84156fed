import SignalOperators
public import StreamCore

extension AnyPublisher {
  /// Creates a publisher whose values and completion come from `factory`, run once per
  /// subscriber.
  ///
  /// ```swift
  /// let greetings = AnyPublisher<String, TestError> { subscriber in
  ///   subscriber.send("Hello")
  ///   subscriber.send("World!")
  ///   subscriber.send(completion: .finished)
  ///   return AnyCancellable { print("clean up") }
  /// }
  /// ```
  ///
  /// See ``StreamCore/Publishers/Create``: values beyond the subscriber's demand are buffered;
  /// once the subscriber has requested something, the completion needs no demand (buffered
  /// values it overtakes are dropped); and the cancellable `factory` returns is cancelled when
  /// the subscription is cancelled or has delivered its completion.
  ///
  /// > Thread safety: As ``StreamCore/Publishers/Create``.
  ///
  /// - Parameter factory: Called with a handle to send events through; returns what cleans up.
  public init(_ factory: @escaping Publishers.Create<Output, Failure>.SubscriberHandler) {
    self = Publishers.Create(factory: factory).eraseToAnyPublisher()
  }

  /// Creates a publisher whose values and completion come from `factory`, run once per
  /// subscriber.
  ///
  /// ```swift
  /// let ticks = AnyPublisher<Int, Never>.create { subscriber in
  ///   subscriber.send(1)
  ///   subscriber.send(completion: .finished)
  ///   return AnyCancellable {}
  /// }
  /// ```
  ///
  /// The same as ``init(_:)``.
  ///
  /// > Thread safety: As ``StreamCore/Publishers/Create``.
  ///
  /// - Parameter factory: Called with a handle to send events through; returns what cleans up.
  /// - Returns: A publisher of what `factory` sends.
  public static func create(
    _ factory: @escaping Publishers.Create<Output, Failure>.SubscriberHandler
  ) -> AnyPublisher<Output, Failure> {
    AnyPublisher(factory)
  }
}

extension Publishers {
  /// A publisher whose values and completion are pushed by a closure, run once per subscriber.
  ///
  /// ```swift
  /// let numbers = Publishers.Create<Int, Never> { subscriber in
  ///   subscriber.send(1)
  ///   subscriber.send(2)
  ///   subscriber.send(completion: .finished)
  ///   return AnyCancellable {}
  /// }
  /// ```
  ///
  /// Each subscriber first receives its subscription; then, unless it cancelled meanwhile,
  /// `factory` runs with a ``Subscriber`` handle. What it sends beyond the subscriber's demand
  /// is buffered, without a limit, and delivered as demand arrives. Once the subscriber has
  /// requested something, a completion needs no demand, as in CombineExt: the buffered values
  /// its demand covers go first, the rest are dropped, then the completion is delivered (before
  /// any request, it waits for the first, behind the values that request covers; with no value
  /// buffered, it goes at once). What is sent after it is ignored. The
  /// `Cancellable` that `factory` returns is cancelled when the subscriber cancels, and after
  /// the completion was delivered (at once if that happened before `factory` returned). After
  /// `cancel()`, nothing more is delivered and the buffer is dropped. The subscription is
  /// described as CombineExt's is, `"Create.Subscription<Output, Failure>"` with the type names.
  ///
  /// > Thread safety: The handle's `send(_:)` and `send(completion:)` may be called from any
  /// > thread, also concurrently: values are delivered one at a time, in the order they were
  /// > buffered, by whichever thread finds them deliverable. `request(_:)` and `cancel()` are safe
  /// > from any thread. `factory` runs on the thread that subscribes.
  public struct Create<Output, Failure: Error>: Publisher {
    /// The closure that produces a subscription's events through its handle, and returns what
    /// cleans up after it.
    public typealias SubscriberHandler = (Subscriber) -> any Cancellable

    private let factory: SubscriberHandler

    /// Creates a publisher whose events `factory` sends.
    ///
    /// ```swift
    /// let empty = Publishers.Create<Int, Never> { subscriber in
    ///   subscriber.send(completion: .finished)
    ///   return AnyCancellable {}
    /// }
    /// ```
    ///
    /// > Thread safety: See the type's discussion.
    ///
    /// - Parameter factory: Called for each subscriber with a handle to send events through.
    public init(factory: @escaping SubscriberHandler) {
      self.factory = factory
    }

    public func receive<S: StreamCore.Subscriber>(subscriber: S)
    where S.Input == Output, S.Failure == Failure {
      let inner = CreateInner(downstream: subscriber)
      subscriber.receive(subscription: inner)
      // A subscriber that cancelled inside `receive(subscription:)` needs no events.
      guard !inner.hasEnded else { return }
      inner.start(factory(Subscriber(sink: inner)))
    }
  }
}

extension Publishers.Create {
  /// The handle a ``Publishers/Create`` closure sends its events through.
  ///
  /// ```swift
  /// Publishers.Create<Int, TestError> { subscriber in
  ///   subscriber.send(1)
  ///   subscriber.send(completion: .failure(TestError()))
  ///   return AnyCancellable {}
  /// }
  /// ```
  ///
  /// It refers to its subscription weakly: once the subscription has ended and been released,
  /// sending does nothing.
  ///
  /// > Thread safety: Both methods are safe from any thread; see ``Publishers/Create``.
  public struct Subscriber: Sendable {
    private weak var sink: CreateSink<Output, Failure>?

    init(sink: CreateSink<Output, Failure>) {
      self.sink = sink
    }

    /// Sends a value, delivered when the subscriber has demand for it.
    ///
    /// > Thread safety: Safe from any thread.
    ///
    /// - Parameter input: The value to send.
    public func send(_ input: Output) {
      sink?.send(input)
    }

    /// Ends the publisher, after the values already sent that the subscriber's demand covers
    /// (the others are dropped; see ``Publishers/Create``); later events are ignored.
    ///
    /// > Thread safety: Safe from any thread.
    ///
    /// - Parameter completion: How the publisher ends.
    public func send(completion: Subscribers.Completion<Failure>) {
      sink?.send(completion: completion)
    }
  }
}

/// The part of a create subscription its handle sees, without the subscriber's type.
// Sendable: subclasses guard their state with a lock.
class CreateSink<Output, Failure: Error>: @unchecked Sendable {
  func send(_ input: Output) {
    preconditionFailure("CreateSink.send(_:) must be overridden")
  }

  func send(completion: Subscribers.Completion<Failure>) {
    preconditionFailure("CreateSink.send(completion:) must be overridden")
  }
}

/// The state of a create subscription.
///
/// ```
/// active --the completion delivered / cancel()--> terminal  (the cleanup is cancelled)
/// ```
struct CreateState<Downstream: Subscriber> {
  enum Phase {
    case active(DeliveryOutlet<Downstream>)
    case terminal
  }

  var phase: Phase
  /// What the factory returned; `nil` until it returns, and after it was handed out.
  var cleanup: (any Cancellable)?
  /// Whether the subscriber has requested anything: from then on a completion needs no demand.
  var hasRequested = false

  init(downstream: Downstream) {
    phase = .active(DeliveryOutlet(downstream))
  }

  var isTerminal: Bool {
    if case .terminal = phase { return true }
    return false
  }

  /// Runs `body` on the outlet while active, without copying its buffer.
  mutating func withOutlet<Result>(
    _ body: (inout DeliveryOutlet<Downstream>) -> Result
  ) -> Result? {
    guard case .active(var outlet) = phase else { return nil }
    phase = .terminal
    defer { phase = .active(outlet) }
    return body(&outlet)
  }

  /// The factory returned `cleanup`; returns it back if the subscription already ended.
  mutating func install(_ cleanup: any Cancellable) -> (any Cancellable)? {
    guard !isTerminal else { return cleanup }
    self.cleanup = cleanup
    return nil
  }

  /// The subscriber asked for `demand`; `true`: the caller claimed the drain.
  mutating func request(_ demand: Subscribers.Demand) -> Bool {
    hasRequested = true
    return withOutlet { $0.queue.request(demand) } ?? false
  }

  /// Accepts the completion (the first one wins); `true`: the caller claimed the drain.
  ///
  /// Once the subscriber has requested something, a completion needs no demand, as CombineExt's
  /// demand buffer: when values wait with none for them, the caller claims the drain, whose
  /// next step drops them and hands out the completion (when the drain is already claimed, the
  /// thread delivering does the same once the demand runs out). Before any request, the
  /// completion waits behind the values for the first one.
  mutating func finish(_ completion: Subscribers.Completion<Downstream.Failure>) -> Bool {
    let overtakes = hasRequested
    return withOutlet { outlet in
      guard !outlet.queue.isCompleting else { return false }
      if outlet.queue.finish(completion) { return true }
      return overtakes && outlet.queue.demand == .none && !outlet.queue.values.isEmpty
        && outlet.queue.drain.claim()
    } ?? false
  }

  /// The drain's next step; on the completion, the state ends and hands out the cleanup.
  /// Once completing, the values the subscriber has no demand for go to `dropped`, to release
  /// after the lock.
  mutating func nextStep(
    adding more: Subscribers.Demand,
    ending: inout (any Cancellable)?,
    dropped: inout RingBuffer<Downstream.Input>
  ) -> OutletStep<Downstream>? {
    let overtakes = hasRequested
    let next = withOutlet { outlet -> OutletStep<Downstream>? in
      outlet.queue.demand += more
      if overtakes, outlet.queue.completion != nil, outlet.queue.demand == .none,
        !outlet.queue.values.isEmpty
      {
        swap(&dropped, &outlet.queue.values)
      }
      return outlet.nextStep(adding: .none)
    }
    guard let step = next ?? nil else { return nil }
    if step.isCompletion {
      phase = .terminal
      ending = cleanup.take()
    }
    return step
  }

  /// Ends without delivering; returns what to cancel and release after the lock.
  mutating func cancel() -> (DeliveryOutlet<Downstream>.Released?, (any Cancellable)?) {
    let released = withOutlet { $0.cancel() }
    phase = .terminal
    return (released, cleanup.take())
  }
}

/// The subscription of ``Publishers/Create``: a demand buffer between the factory's handle and
/// the subscriber, delivered through the serial drain.
// Sendable: `state` is guarded by `lock`; the downstream and the cleanup are called outside it.
final class CreateInner<Downstream: Subscriber>: CreateSink<Downstream.Input, Downstream.Failure>,
  Subscription, CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible,
  @unchecked Sendable
{
  private let lock = Lock()
  private var state: CreateState<Downstream>

  init(downstream: Downstream) {
    state = CreateState(downstream: downstream)
  }

  var description: String {
    "Create.Subscription<\(Downstream.Input.self), \(Downstream.Failure.self)>"
  }

  /// The `downstream` (`nil` once released), its `demand` not yet met, and the values
  /// `buffered` for want of demand.
  var customMirror: Mirror {
    let (downstream, demand, buffered) = lock.withLock {
      () -> (Downstream?, Subscribers.Demand, [Downstream.Input]) in
      guard case .active(let outlet) = state.phase else { return (nil, .none, []) }
      return (outlet.downstream, outlet.queue.demand, Array(outlet.queue.values))
    }
    return Mirror(
      self,
      children: ["downstream": downstream as Any, "demand": demand, "buffered": buffered]
    )
  }

  var playgroundDescription: Any { description }

  /// Whether the subscription was cancelled or has delivered its completion.
  var hasEnded: Bool { lock.withLock { state.isTerminal } }

  /// Keeps what the factory returned, or cancels it if the subscription already ended.
  func start(_ cleanup: any Cancellable) {
    lock.withLock { state.install(cleanup) }?.cancel()
  }

  override func send(_ input: Downstream.Input) {
    if lock.withLock({ state.withOutlet { $0.queue.enqueue(input) } ?? false }) { drain() }
  }

  override func send(completion: Subscribers.Completion<Downstream.Failure>) {
    if lock.withLock({ state.finish(completion) }) { drain() }
  }

  func request(_ demand: Subscribers.Demand) {
    demand.assertPositive()
    if lock.withLock({ state.request(demand) }) { drain() }
  }

  func cancel() {
    let (released, cleanup) = lock.withLock { state.cancel() }
    cleanup?.cancel()
    _ = released  // the subscriber and the buffer, released after the lock
  }

  private func drain() {
    var ending: (any Cancellable)?
    var dropped = RingBuffer<Downstream.Input>()
    DeliveryOutlet<Downstream>.drain(lock) { more in
      state.nextStep(adding: more, ending: &ending, dropped: &dropped)
    }
    ending?.cancel()
    _ = consume dropped  // released after the lock, once the completion was delivered
  }
}
