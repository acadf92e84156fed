import StreamCore

/// One downstream subscription fed by a chain of publishers, one after another: the engine of
/// `Concatenate`, `Catch`, `TryCatch`, `Retry` and `RetryWhen`.
///
/// Each publisher in the chain is a *stage*. ``attach(_:onCompletion:)`` subscribes the next
/// stage; when it completes, its `onCompletion` decides whether the downstream completes or
/// another stage follows. The downstream sees one subscription (this object) for the whole chain.
/// Demand it requested and that was not yet delivered is carried over to the next stage.
///
/// ```
/// live(awaitingFirstStage) --first stage subscribes--> live(attached)  (downstream subscribed)
/// live(attached) --stage completes--> live(between) --decide (outside the lock)-->
///   .next: attach the next stage (through the drain, so synchronous failures don't recurse)
///   .complete: terminal
///   .wait: live(between, waiting) until resume(_:) attaches the next stage or finish(_:) ends
/// live --cancel() / finish(_:)--> terminal  (the live stage and the companion are cancelled)
/// ```
// Sendable: all mutable state is in `state`, guarded by `lock`; the downstream, the stages and
// the decisions are called outside it, and only the live stage delivers values.
final class SerialUpstreams<Downstream: Subscriber>: @unchecked Sendable, Subscription,
  CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible
{
  typealias Output = Downstream.Input
  typealias Failure = Downstream.Failure

  /// What follows a completed stage.
  enum Step {
    /// The downstream completes with this.
    case complete(Subscribers.Completion<Failure>)
    /// Run this, which attaches the next stage.
    case next(() -> Void)
    /// Wait for ``resume(_:)`` or ``finish(_:)``; `then` runs (outside the lock) once the
    /// subscription is waiting, and may call either of them.
    case wait(then: () -> Void)
  }

  /// The live stage's subscription, as far as the downstream is concerned.
  private enum StageLink {
    /// No stage has subscribed yet, so the downstream has no subscription yet either.
    case awaitingFirstStage
    /// A stage completed and the next one has not subscribed yet.
    case between
    case attached(any Subscription)

    var subscription: (any Subscription)? {
      guard case .attached(let subscription) = self else { return nil }
      return subscription
    }
  }

  private struct Live {
    var downstream: Downstream
    var link = StageLink.awaitingFirstStage
    /// Requested by the downstream and not yet delivered.
    var demand = Subscribers.Demand.none
    /// The number of the live stage; events from older stages are ignored.
    var stage = 0
    /// Claimed by the thread running attach work; others leave theirs in `pending`.
    var drain = SerialDrain()
    /// Attach work that came while the drain was claimed (a stage completed while the previous
    /// one was being attached); a newer one supersedes it.
    var pending: (() -> Void)?
    /// Whether a completed stage waits for ``resume(_:)`` (a `.wait` step).
    var waiting = false
    /// Cancelled when the subscription ends: what decides about the next stage, for operators
    /// that subscribe to one (`RetryWhen`'s trigger).
    var companion: (any Cancellable)?
    /// Calls into the downstream in progress (a stage's value, or the first stage's
    /// subscription); `finish(_:)` waits for them to return.
    var delivering = 0
    /// A completion `finish(_:)` decided while a delivery was in progress; the last delivering
    /// thread sends it.
    var finishing: Subscribers.Completion<Failure>?
    /// `demand` when the first stage was left, which the mirror shows from then on (as
    /// Combine's `catch`, which counts demand for the first publisher only).
    var firstStageDemand: Subscribers.Demand?
  }

  private enum State {
    case live(Live)
    case terminal
  }

  /// What the caller does with a stage's subscription.
  private enum SubscribeAction {
    case cancel
    case first(Downstream)
    case request(Subscribers.Demand)
    case nothing
  }

  /// What a transition releases; the caller cancels or drops it after the lock.
  private struct Released {
    var downstream: Downstream?
    var subscription: (any Subscription)?
    var pending: (() -> Void)?
    var companion: (any Cancellable)?
    /// Whether the downstream had not received its subscription yet.
    var unsubscribed = false
  }

  private let lock = Lock()
  private var state: State

  let description: String

  /// Whether the demand the downstream returns from `receive(_:)` is requested from the live
  /// stage (and `.none` returned to it) rather than returned to it: `Retry`'s way, as Combine's.
  private let requestsExtraDemand: Bool

  /// Whether the mirror shows the downstream and its outstanding demand (as Combine's `catch`
  /// and `tryCatch`) rather than no children.
  private let reflectsDemand: Bool

  init(
    downstream: Downstream,
    name: String,
    requestsExtraDemand: Bool = false,
    reflectsDemand: Bool = false
  ) {
    state = .live(Live(downstream: downstream))
    self.description = name
    self.requestsExtraDemand = requestsExtraDemand
    self.reflectsDemand = reflectsDemand
  }

  /// No children, or `downstream` and `demand` (see `reflectsDemand`): what the downstream has
  /// requested and not received from the first stage, frozen when the next stage attaches.
  var customMirror: Mirror {
    guard reflectsDemand else { return Mirror(self, children: [:]) }
    let (downstream, demand) = lock.withLock { () -> (Downstream?, Subscribers.Demand) in
      guard case .live(let live) = state else { return (nil, .none) }
      return (live.downstream, live.firstStageDemand ?? live.demand)
    }
    return Mirror(
      self,
      children: [
        "downstream": downstream.map { $0 as Any } ?? (nil as Downstream? as Any),
        "demand": demand,
      ]
    )
  }

  var playgroundDescription: Any { description }

  /// Changes the live state with `body`; returns `nil` once terminal.
  private func withLive<R>(_ body: (inout Live) -> R) -> R? {
    lock.withLock {
      guard case .live(var live) = state else { return nil }
      let result = body(&live)
      state = .live(live)
      return result
    }
  }

  /// Runs `work` now, or, if another call of `run` is under way (a stage completed while the
  /// previous one was being attached), right after it on that thread.
  func run(_ work: @escaping () -> Void) {
    var superseded: (() -> Void)?  // released after the lock
    let claimed =
      withLive { live -> Bool in
        superseded = live.pending.take()
        live.pending = work
        return live.drain.claim()
      } ?? false
    _ = superseded
    guard claimed else { return }
    SerialDrain.run(lock) { () -> (() -> Void)? in
      guard case .live(var live) = state else { return nil }
      guard let next = live.pending.take() else {
        live.drain.release()
        state = .live(live)
        return nil
      }
      state = .live(live)
      return next
    } perform: { work in
      work()
      return true
    }
  }

  /// Subscribes `publisher` as the next stage. Call it from inside ``run(_:)``.
  func attach<P: Publisher>(
    _ publisher: P,
    onCompletion: @escaping (Subscribers.Completion<P.Failure>) -> Step
  ) where P.Output == Output {
    let number = withLive { live -> Int in
      if live.stage >= 1, live.firstStageDemand == nil { live.firstStageDemand = live.demand }
      live.stage += 1
      return live.stage
    }
    guard let number else { return }
    publisher.subscribe(Stage(serial: self, number: number, onCompletion: onCompletion))
  }

  fileprivate func stageSubscribed(_ number: Int, _ subscription: any Subscription) {
    let action =
      withLive { live -> SubscribeAction in
        guard number == live.stage else { return .cancel }
        switch live.link {
        case .attached:
          return .cancel
        case .awaitingFirstStage:
          live.link = .attached(subscription)
          live.delivering += 1
          return .first(live.downstream)
        case .between:
          live.link = .attached(subscription)
          return live.demand > 0 ? .request(live.demand) : .nothing
        }
      } ?? .cancel
    switch action {
    case .cancel: subscription.cancel()
    case .first(let downstream):
      downstream.receive(subscription: self)
      deliveryReturned()
    case .request(let demand): subscription.request(demand)
    case .nothing: break
    }
  }

  fileprivate func stageValue(_ number: Int, _ value: Output) -> Subscribers.Demand {
    let target = withLive { live -> Downstream? in
      guard number == live.stage, live.finishing == nil, live.demand > 0 else { return nil }
      live.demand -= 1
      live.delivering += 1
      return live.downstream
    }
    guard let target = target ?? nil else { return .none }
    let more = target.receive(value)
    deliveryReturned()
    guard more > 0 else { return .none }
    let outcome = lock.withLock { () -> (stale: Bool, subscription: (any Subscription)?) in
      guard case .live(var live) = state else { return (false, nil) }  // ended
      guard number == live.stage else { return (true, nil) }
      live.demand += more
      state = .live(live)
      return (false, live.link.subscription)
    }
    if outcome.stale { return .none }
    // As Combine: once ended (also by a cancel from inside the downstream's `receive(_:)`), the
    // demand the downstream returned still goes back to the stage that sent the value.
    guard requestsExtraDemand else { return more }
    outcome.subscription?.request(more)
    return .none
  }

  fileprivate func stageCompleted<F: Error>(
    _ number: Int,
    _ completion: Subscribers.Completion<F>,
    _ onCompletion: (Subscribers.Completion<F>) -> Step
  ) {
    let finished = withLive { live -> (any Subscription)? in
      guard number == live.stage else { return nil }
      // As in Combine: a completion from a stage that hasn't sent its subscription yet (a
      // misbehaving upstream) is ignored.
      guard case .attached(let subscription) = live.link else { return nil }
      live.link = .between
      return subscription
    }
    // `.some(subscription)`: this stage is the live one; its subscription is released here.
    guard case .some(.some(let ended)) = finished else { return }
    _ = ended
    switch onCompletion(completion) {
    case .complete(let completion): complete(completion)
    case .next(let work): run(work)
    case .wait(let then):
      let waiting = withLive { live -> Bool in
        live.waiting = true
        return true
      }
      guard waiting ?? false else { return }
      then()
    }
  }

  /// Attaches the next stage with `work` if a completed stage is waiting (a `.wait` step);
  /// otherwise does nothing and returns `false`.
  @discardableResult
  func resume(_ work: @escaping () -> Void) -> Bool {
    let resumed =
      withLive { live -> Bool in
        guard live.waiting else { return false }
        live.waiting = false
        return true
      } ?? false
    if resumed { run(work) }
    return resumed
  }

  /// Keeps `companion`, to cancel when the subscription ends; `false` if it already ended (the
  /// caller cancels it).
  func keep(companion: any Cancellable) -> Bool {
    let kept = withLive { live -> Bool in
      precondition(live.companion == nil, "SerialUpstreams: a companion is already kept")
      live.companion = companion
      return true
    }
    return kept ?? false
  }

  /// Ends the subscription from outside the chain: cancels the live stage and the companion,
  /// then delivers `completion` (after an empty subscription, if the downstream had none yet).
  ///
  /// It may run on any thread while a stage delivers on another: then the stage and the
  /// companion are cancelled at once, and the delivering thread sends the completion when its
  /// call returns, so the downstream is never called from two threads at once.
  func finish(_ completion: Subscribers.Completion<Failure>) {
    let deferred = withLive { live -> FinishDeferral? in
      guard live.delivering > 0 else { return nil }
      guard live.finishing == nil else { return FinishDeferral() }
      live.finishing = completion
      live.stage += 1  // what the cancelled stage still sends is ignored
      let subscription = live.link.subscription
      live.link = .between
      return FinishDeferral(subscription: subscription, companion: live.companion.take())
    }
    switch deferred {
    case .none: return  // already ended
    case .some(.some(let deferral)):
      deferral.subscription?.cancel()
      deferral.companion?.cancel()
    case .some(.none):
      deliver(completion)
    }
  }

  /// What `finish(_:)` cancels when a delivery is in progress.
  private struct FinishDeferral {
    var subscription: (any Subscription)?
    var companion: (any Cancellable)?
  }

  /// Sends the completion `finish(_:)` left to the delivering threads, once the last returns.
  private func deliveryReturned() {
    let completion = withLive { live -> Subscribers.Completion<Failure>? in
      live.delivering -= 1
      guard live.delivering == 0 else { return nil }
      return live.finishing
    }
    if let completion = completion ?? nil { deliver(completion) }
  }

  private func deliver(_ completion: Subscribers.Completion<Failure>) {
    guard let released = end() else { return }
    released.subscription?.cancel()
    released.companion?.cancel()
    guard let downstream = released.downstream else { return }
    if released.unsubscribed { downstream.receive(subscription: Subscriptions.empty) }
    downstream.receive(completion: completion)
  }

  /// Ends the subscription; `nil` if it already ended.
  private func end() -> Released? {
    lock.withLock {
      guard case .live(let live) = state else { return nil }
      state = .terminal
      var unsubscribed = false
      if case .awaitingFirstStage = live.link { unsubscribed = true }
      return Released(
        downstream: live.downstream,
        subscription: live.link.subscription,
        pending: live.pending,
        companion: live.companion,
        unsubscribed: unsubscribed
      )
    }
  }

  private func complete(_ completion: Subscribers.Completion<Failure>) {
    guard let released = end() else { return }
    released.companion?.cancel()
    released.downstream?.receive(completion: completion)
  }

  func request(_ demand: Subscribers.Demand) {
    demand.assertPositive()
    let subscription = withLive { live -> (any Subscription)? in
      live.demand += demand
      return live.link.subscription
    }
    subscription??.request(demand)
  }

  func cancel() {
    guard let released = end() else { return }
    released.subscription?.cancel()
    released.companion?.cancel()
  }
}

extension SerialUpstreams {
  /// The subscriber attached to one stage; it tags the stage's events with its number.
  private final class Stage<StageFailure: Error>: Subscriber, CustomStringConvertible {
    typealias Input = Output
    typealias Failure = StageFailure

    private let serial: SerialUpstreams
    private let number: Int
    private let onCompletion: (Subscribers.Completion<StageFailure>) -> Step

    init(
      serial: SerialUpstreams,
      number: Int,
      onCompletion: @escaping (Subscribers.Completion<StageFailure>) -> Step
    ) {
      self.serial = serial
      self.number = number
      self.onCompletion = onCompletion
    }

    var description: String { serial.description }

    func receive(subscription: any Subscription) {
      serial.stageSubscribed(number, subscription)
    }

    func receive(_ input: Output) -> Subscribers.Demand {
      serial.stageValue(number, input)
    }

    func receive(completion: Subscribers.Completion<StageFailure>) {
      serial.stageCompleted(number, completion, onCompletion)
    }
  }
}
