import StreamCore
import StreamTesting

/// A publisher that ignores demand and sends all its values, then finishes, as soon as it is
/// subscribed: it breaks the contract on purpose, to show an operator doesn't pass the excess on.
struct OverfillPublisher<Failure: Error>: Publisher {
  typealias Output = Int
  let values: [Int]

  func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == Failure {
    subscriber.receive(subscription: IgnoredSubscription())
    for value in values {
      _ = subscriber.receive(value)
    }
    subscriber.receive(completion: .finished)
  }
}

/// A subscription that ignores requests and cancellation.
final class IgnoredSubscription: Subscription {
  func request(_ demand: Subscribers.Demand) {}
  func cancel() {}
}

/// Conformance rules for operators that drop values the subscriber has no demand for
/// (debounce, throttle). A synchronous upstream sends everything as soon as the operator
/// requests `.unlimited`, before the kit's probe has asked for anything, so the rules that expect
/// every value to arrive once demand does are left out.
enum TimingRules {
  static let droppingOperators: [ConformanceRule] = ConformanceRule.all.filter {
    ![
      .demandOneAtATime, .demandFromReceive, .demandUpFront, .requestFromReceiveDoesNotRecurse,
      .finiteElementsThenFinished, .concurrentRequests, .independentSubscriptions,
    ]
    .contains($0)
  }
}

/// Requests `.unlimited` in `receive(subscription:)`, then records what `observe` returns there
/// (a scheduler's pending action count, say: whether a timer already exists at that point).
final class TimingOrderProbe<Input, Failure: Error>: Subscriber, Sendable {
  let observed = LockedState<[Int]>([])
  let completions = LockedState(0)
  private let observe: @Sendable () -> Int

  init(observe: @escaping @Sendable () -> Int) {
    self.observe = observe
  }

  func receive(subscription: any Subscription) {
    subscription.request(.unlimited)
    let value = observe()
    observed.withLock { $0.append(value) }
  }

  func receive(_ input: Input) -> Subscribers.Demand { .none }

  func receive(completion: Subscribers.Completion<Failure>) {
    completions.withLock { $0 += 1 }
  }
}
