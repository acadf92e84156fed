import FutureKit
import StreamConbini
import StreamCore
import StreamPropagate
import Testing

/// Release after completion and after cancel for FutureKit's publishers, as
/// `SignalOperatorsTests/ReleaseTableTests.swift` does for the operators: each case subscribes a
/// ``KeepingSubscriber``, which keeps its subscription strongly, and checks with `weak`
/// references that the subscriber and its subscription are released. The one-shot `Deferred…`
/// publishers complete as soon as they are subscribed with demand, so their cancel is a cancel
/// after completion.
@Suite(.timeLimit(.minutes(5))) struct FutureKitReleaseTableTests {
  @Test(arguments: FutureKitReleaseTable.cases)
  func afterCompletion_subscriberAndSubscriptionReleased(_ testCase: ReleaseCase) {
    ReleaseChecks.afterCompletion(testCase)
  }

  @Test(arguments: FutureKitReleaseTable.cases)
  func afterCancel_subscriberAndSubscriptionReleased(_ testCase: ReleaseCase) {
    ReleaseChecks.afterCancel(testCase)
  }
}

enum FutureKitReleaseTable {
  typealias Failure = FutureTestError

  static let cases: [ReleaseCase] = [
    .make("Future (pending)") {
      let promise = Promise<Int, Failure>()
      return (promise.future, finish: { _ = promise.resolve(1) }, keepAlive: promise)
    },
    .make("Future (resolved)") {
      (Promise<Int, Failure>(value: 1).future, finish: nil, keepAlive: nil)
    },
    .make("Future (mapValue of pending)") {
      let promise = Promise<Int, Failure>()
      return (
        promise.future.mapValue { $0 + 1 }, finish: { _ = promise.resolve(1) }, keepAlive: promise
      )
    },
    .make("DeferredFuture") {
      (
        DeferredFuture<Int, Failure> { promise in promise(.success(1)) }, finish: nil,
        keepAlive: nil
      )
    },
    .make("DeferredValue") {
      (DeferredValue<Int, Failure> { 1 }, finish: nil, keepAlive: nil)
    },
    .make("DeferredResult") {
      (DeferredResult<Int, Failure> { .success(1) }, finish: nil, keepAlive: nil)
    },
    .make("DeferredComplete") {
      (DeferredComplete<Int, Failure>(), finish: nil, keepAlive: nil)
    },
    .make("DeferredTryComplete") {
      (DeferredTryComplete<Int> {}, finish: nil, keepAlive: nil)
    },
    .make("DeferredTryValue") {
      (DeferredTryValue<Int> { 1 }, finish: nil, keepAlive: nil)
    },
    .make("DeferredPassthrough") {
      let subjects = LockedState<[PassthroughSubject<Int, Failure>]>([])
      let publisher = DeferredPassthrough<Int, Failure> { subject in
        subjects.withLock { $0.append(subject) }
      }
      let finish = {
        for subject in subjects.withLock({ $0 }) { subject.send(completion: .finished) }
      }
      return (publisher, finish: finish, keepAlive: nil)
    },
  ]
}

/// A subscriber that keeps its subscription strongly for ever, even after completion or cancel,
/// as most hand-written subscribers do.
final class KeepingSubscriber<Input, Failure: Error>: Subscriber, @unchecked Sendable {
  private struct Stored {
    var subscription: (any Subscription)?
    var completed = false
  }
  private let stored = LockedState(Stored())

  func receive(subscription: any Subscription) {
    stored.withLock { $0.subscription = subscription }
    subscription.request(.unlimited)
  }

  func receive(_ input: Input) -> Subscribers.Demand { .none }

  func receive(completion: Subscribers.Completion<Failure>) {
    stored.withLock { $0.completed = true }
  }

  var subscription: (any Subscription)? { stored.withLock { $0.subscription } }

  var completed: Bool { stored.withLock { $0.completed } }

  /// Cancels, and keeps the subscription all the same.
  func cancel() { subscription?.cancel() }
}

/// One subscribed publisher, seen from the test: `finish` makes it complete, if it can.
struct Attached {
  let subscriber: AnyObject
  let subscription: () -> AnyObject?
  let completed: () -> Bool
  let cancel: () -> Void
  let finish: (() -> Void)?
  let keepAlive: Any?

  init<Input, Failure>(
    _ keeper: KeepingSubscriber<Input, Failure>,
    finish: (() -> Void)?,
    keepAlive: Any? = nil
  ) {
    subscriber = keeper
    subscription = { [weak keeper] in keeper?.subscription as AnyObject? }
    completed = { [weak keeper] in keeper?.completed ?? false }
    cancel = { [weak keeper] in keeper?.cancel() }
    self.finish = finish
    self.keepAlive = keepAlive
  }
}

struct ReleaseCase: Sendable, CustomTestStringConvertible {
  let name: String
  let attach: @Sendable () -> Attached

  var testDescription: String { name }

  /// Subscribes a ``KeepingSubscriber`` to what `build` makes; `build` returns the publisher and
  /// how to make it complete (`nil` for a publisher that never completes by itself).
  static func make<P: Publisher>(
    _ name: String,
    _ build: @escaping @Sendable () -> (P, finish: (() -> Void)?, keepAlive: Any?)
  ) -> ReleaseCase {
    ReleaseCase(name: name) {
      let (publisher, finish, keepAlive) = build()
      let keeper = KeepingSubscriber<P.Output, P.Failure>()
      publisher.subscribe(keeper)
      return Attached(keeper, finish: finish, keepAlive: keepAlive)
    }
  }
}

enum ReleaseChecks {
  static func afterCompletion(_ testCase: ReleaseCase) {
    weak var subscriber: AnyObject?
    weak var subscription: AnyObject?
    var keepAlive: Any?
    do {
      let attached = testCase.attach()
      subscriber = attached.subscriber
      subscription = attached.subscription()
      keepAlive = attached.keepAlive
      #expect(subscription != nil, "\(testCase.name): no subscription")
      attached.finish?()
      #expect(attached.completed(), "\(testCase.name): did not complete")
    }
    #expect(subscriber == nil, "\(testCase.name): subscriber leaked after completion")
    #expect(subscription == nil, "\(testCase.name): subscription leaked after completion")
    withExtendedLifetime(keepAlive) {}
  }

  static func afterCancel(_ testCase: ReleaseCase) {
    weak var subscriber: AnyObject?
    weak var subscription: AnyObject?
    var keepAlive: Any?
    do {
      let attached = testCase.attach()
      subscriber = attached.subscriber
      subscription = attached.subscription()
      keepAlive = attached.keepAlive
      #expect(subscription != nil, "\(testCase.name): no subscription")
      attached.cancel()
    }
    #expect(subscriber == nil, "\(testCase.name): subscriber leaked after cancel")
    #expect(subscription == nil, "\(testCase.name): subscription leaked after cancel")
    withExtendedLifetime(keepAlive) {}
  }
}
