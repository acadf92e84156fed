import StreamCore

/// One downstream subscription fed by a chain of publishers, one after another: the engine of
/// `Concatenate`, `Catch`, `TryCatch` and `Retry`.
///
/// Each publisher in the chain is a *stage*. ``attach(_:onCompletion:)`` subscribes the next
/// stage; when it completes, its `onCompletion` decides whether the downstream completes or
/// another stage follows. The downstream sees one subscription (this object) for the whole chain.
/// Demand it requested and that was not yet delivered is carried over to the next stage.
///
/// ```
/// idle --attach--> stage k subscribed --stage k completes--> decide (outside the lock)
/// decide --.next--> attach stage k + 1 (trampolined, so synchronous failures don't recurse)
/// decide --.complete--> terminal; cancel() --> terminal
/// ```
// Sendable: all mutable state is guarded by `lock`; the downstream, the stages and the
// decisions are called outside it, and only the one live stage delivers values.
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
  }

  private enum SubscribeAction {
    case cancel
    case first(Downstream)
    case request(Subscribers.Demand)
    case nothing
  }

  private let lock = Lock()
  private var downstream: Downstream?
  private var current: (any Subscription)?
  /// Requested by the downstream and not yet delivered.
  private var demand = Subscribers.Demand.none
  /// The number of the live stage; events from older stages are ignored.
  private var stage = 0
  private var downstreamSubscribed = false
  private var terminal = false
  private var running = false
  private var pending: (() -> Void)?

  let description: String

  init(downstream: Downstream, name: String) {
    self.downstream = downstream
    self.description = name
  }

  var customMirror: Mirror { Mirror(self, children: [:]) }

  var playgroundDescription: Any { description }

  /// Runs `work` now, or, if another call of `run` is under way (a stage completed while the
  /// previous one was being attached), right after it on that thread.
  func run(_ work: @escaping () -> Void) {
    var superseded: (() -> Void)?  // released after the lock
    let runsNow = lock.withLock { () -> Bool in
      guard !terminal else { return false }
      if running {
        superseded = pending.take()
        pending = work
        return false
      }
      running = true
      return true
    }
    _ = superseded
    guard runsNow else { return }
    var work = work
    while true {
      work()
      let next = lock.withLock { () -> (() -> Void)? in
        guard let next = pending, !terminal else {
          running = false
          return nil
        }
        pending = nil
        return next
      }
      guard let next else { return }
      work = next
    }
  }

  /// Subscribes `publisher` as the next stage. Call it from inside ``run(_:)``.
  func attach<P: Publisher>(
    _ publisher: P,
    onCompletion: @escaping (Subscribers.Completion<P.Failure>) -> Step
  ) where P.Output == Output {
    let number = lock.withLock { () -> Int? in
      guard !terminal else { return nil }
      stage += 1
      return stage
    }
    guard let number else { return }
    publisher.subscribe(Stage(serial: self, number: number, onCompletion: onCompletion))
  }

  fileprivate func stageSubscribed(_ number: Int, _ subscription: any Subscription) {
    let action = lock.withLock { () -> SubscribeAction in
      guard !terminal, number == stage, current == nil else { return .cancel }
      current = subscription
      if !downstreamSubscribed, let downstream {
        downstreamSubscribed = true
        return .first(downstream)
      }
      return demand > 0 ? .request(demand) : .nothing
    }
    switch action {
    case .cancel: subscription.cancel()
    case .first(let downstream): downstream.receive(subscription: self)
    case .request(let demand): subscription.request(demand)
    case .nothing: break
    }
  }

  fileprivate func stageValue(_ number: Int, _ value: Output) -> Subscribers.Demand {
    let target = lock.withLock { () -> Downstream? in
      guard !terminal, number == stage, demand > 0 else { return nil }
      demand -= 1
      return downstream
    }
    guard let target else { return .none }
    let more = target.receive(value)
    guard more > 0 else { return .none }
    return lock.withLock { () -> Subscribers.Demand in
      guard !terminal, number == stage else { return .none }
      demand += more
      return more
    }
  }

  fileprivate func stageCompleted<F: Error>(
    _ number: Int,
    _ completion: Subscribers.Completion<F>,
    _ onCompletion: (Subscribers.Completion<F>) -> Step
  ) {
    let finished = lock.withLock { () -> (any Subscription)?? in
      guard !terminal, number == stage else { return nil }
      defer { current = nil }
      return .some(current)
    }
    guard let finished else { return }
    _ = finished
    switch onCompletion(completion) {
    case .complete(let completion): complete(completion)
    case .next(let work): run(work)
    }
  }

  private func complete(_ completion: Subscribers.Completion<Failure>) {
    let released = lock.withLock { () -> (Downstream?, (() -> Void)?) in
      guard !terminal else { return (nil, nil) }
      terminal = true
      defer {
        downstream = nil
        pending = nil
      }
      return (downstream, pending)
    }
    released.0?.receive(completion: completion)
  }

  func request(_ demand: Subscribers.Demand) {
    demand.assertPositive()
    let subscription = lock.withLock { () -> (any Subscription)? in
      guard !terminal else { return nil }
      self.demand += demand
      return current
    }
    subscription?.request(demand)
  }

  func cancel() {
    let released = lock.withLock { () -> (Downstream?, (any Subscription)?, (() -> Void)?)? in
      guard !terminal else { return nil }
      terminal = true
      defer {
        downstream = nil
        current = nil
        pending = nil
      }
      return (downstream, current, pending)
    }
    released?.1?.cancel()
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
