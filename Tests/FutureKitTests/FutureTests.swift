import Dispatch
import FutureKit
import StreamConbini
import StreamCore
import StreamPropagate
import StreamTesting
import Testing

/// Records what reaches an `InnerSubscriber`'s owner through its entries.
private final class InnerOwnerLog {
  var events: [String] = []
  var subscription: (any Subscription)?

  let entries = InnerEntries<Int, Never>(
    name: "Owner",
    subscribedEntry: { owner, _, subscription in
      let log = owner as! InnerOwnerLog
      log.subscription = subscription
      log.events.append("subscription")
    },
    subscribedObjectEntry: { owner, _, subscription in
      let log = owner as! InnerOwnerLog
      log.subscription = subscription
      log.events.append("object subscription")
    },
    valueEntry: { owner, _, value in
      (owner as! InnerOwnerLog).events.append("value \(value)")
      return .none
    },
    completionEntry: { owner, _, _ in (owner as! InnerOwnerLog).events.append("finished") }
  )

  var subscriber: InnerSubscriber<Int, Never> {
    InnerSubscriber(owner: self, entries: entries, tag: InnerTag(slot: 0, generation: 1))
  }
}

@Suite(.timeLimit(.minutes(5))) struct FutureTests {
  @Test func innerSubscriber_getsTheSubscriptionAsAnObject() {
    let resolvedOwner = InnerOwnerLog()
    Future<Int, Never> { $0(.success(3)) }.receive(subscriber: resolvedOwner.subscriber)
    resolvedOwner.subscription?.request(.unlimited)
    #expect(resolvedOwner.events == ["object subscription", "value 3", "finished"])

    var promise: Future<Int, Never>.Promise?
    let pending = Future<Int, Never> { promise = $0 }
    let pendingOwner = InnerOwnerLog()
    pending.receive(subscriber: pendingOwner.subscriber)
    pendingOwner.subscription?.request(.max(1))
    #expect(pendingOwner.events == ["object subscription"])
    promise?(.success(4))
    #expect(pendingOwner.events == ["object subscription", "value 4", "finished"])
  }

  @Test func initialiser_runsTheClosureAtOnce() {
    let runs = LockedState(0)
    _ = Future<Int, Never> { _ in runs.withLock { $0 += 1 } }
    #expect(runs.withLock { $0 } == 1)
  }

  @Test func resolvedInTheClosure_sinkReceivesTheValueThenFinished() {
    let future = Future<Int, Never> { $0(.success(42)) }
    let recorder = RecordingSubscriber<Int, Never>()
    future.subscribe(recorder)
    #expect(recorder.events == [.subscription, .value(42), .completion(.finished)])
    #expect(recorder.violations.isEmpty)
  }

  @Test func secondPromiseCall_isIgnored() {
    let future = Future<Int, FutureTestError> { promise in
      promise(.success(1))
      promise(.success(2))
      promise(.failure(.first))
    }
    let recorder = RecordingSubscriber<Int, FutureTestError>()
    future.subscribe(recorder)
    #expect(recorder.events == [.subscription, .value(1), .completion(.finished)])
  }

  @Test func resolvedLater_deliversToWaitingSubscribersOnTheResolvingCall() {
    let held = LockedState<Future<Int, Never>.Promise?>(nil)
    let future = Future<Int, Never> { promise in held.withLock { $0 = promise } }
    let first = RecordingSubscriber<Int, Never>()
    let second = RecordingSubscriber<Int, Never>()
    future.subscribe(first)
    future.subscribe(second)
    #expect(first.events == [.subscription])
    held.withLock { $0 }?(.success(5))
    #expect(first.events == [.subscription, .value(5), .completion(.finished)])
    #expect(second.events == [.subscription, .value(5), .completion(.finished)])
  }

  @Test func lateSubscriber_receivesTheStoredResult() {
    let future = Future<Int, Never> { $0(.success(3)) }
    let early = RecordingSubscriber<Int, Never>()
    future.subscribe(early)
    let late = RecordingSubscriber<Int, Never>()
    future.subscribe(late)
    #expect(late.events == [.subscription, .value(3), .completion(.finished)])
  }

  @Test func threeWordResultWithReferences_isCopiedToEveryReaderAndReleasedWithTheFuture() {
    // Exactly fills an existential's inline buffer, and holds references that each read must
    // retain: read by two subscribers, `resolvedValue` and a callback, after the first reader
    // has let its copy go.
    weak var weakPayload: FutureLargePayload?
    do {
      let payload = FutureLargePayload()
      weakPayload = payload
      let value = FutureThreeWordValue(
        text: "x" + String(repeating: "y", count: 40),
        payload: payload
      )
      let future = Future<FutureThreeWordValue, Never> { $0(.success(value)) }
      do {
        let first = RecordingSubscriber<FutureThreeWordValue, Never>()
        future.subscribe(first)
        #expect(first.events == [.subscription, .value(value), .completion(.finished)])
      }
      let second = RecordingSubscriber<FutureThreeWordValue, Never>()
      future.subscribe(second)
      #expect(second.events == [.subscription, .value(value), .completion(.finished)])
      #expect(future.resolvedValue == value)
      let seen = LockedState<FutureThreeWordValue?>(nil)
      _ = future.onSuccess(.synchronously) { received in seen.withLock { $0 = received } }
      #expect(seen.withLock { $0 } == value)
    }
    #expect(weakPayload == nil)
  }

  @Test func resultLargerThanThreeWords_reachesEverySubscriberIntactAndIsReleased() {
    weak var weakPayload: FutureLargePayload?
    do {
      let payload = FutureLargePayload()
      weakPayload = payload
      let value = FutureLargeValue(
        first: 1,
        second: 2,
        third: 3,
        fourth: 4,
        text: String(repeating: "long text ", count: 4),
        payload: payload
      )
      let future = Future<FutureLargeValue, Never> { $0(.success(value)) }
      let early = RecordingSubscriber<FutureLargeValue, Never>()
      future.subscribe(early)
      let late = RecordingSubscriber<FutureLargeValue, Never>()
      future.subscribe(late)
      #expect(early.events == [.subscription, .value(value), .completion(.finished)])
      #expect(late.events == [.subscription, .value(value), .completion(.finished)])
      #expect(future.resolvedValue == value)
    }
    #expect(weakPayload == nil)
  }

  @Test func failureLargerThanThreeWords_reachesALateSubscriberIntact() {
    let error = FutureLargeError(codes: [7, 8, 9], message: "offline", first: 1, second: 2)
    let future = Future<Int, FutureLargeError> { $0(.failure(error)) }
    let first = RecordingSubscriber<Int, FutureLargeError>(initialDemand: nil)
    future.subscribe(first)
    let second = RecordingSubscriber<Int, FutureLargeError>(initialDemand: nil)
    future.subscribe(second)
    #expect(first.events == [.subscription, .completion(.failure(error))])
    #expect(second.events == [.subscription, .completion(.failure(error))])
    #expect(future.error == error)
  }

  @Test func classValue_isHandedOverUnchangedAndReleasedWithTheFuture() {
    weak var weakPayload: FutureLargePayload?
    do {
      let payload = FutureLargePayload()
      weakPayload = payload
      let future = Future<FutureLargePayload, Never> { $0(.success(payload)) }
      let recorder = RecordingSubscriber<FutureLargePayload, Never>()
      future.subscribe(recorder)
      #expect(recorder.values.count == 1)
      #expect(recorder.values.first === payload)
    }
    #expect(weakPayload == nil)
  }

  @Test func noDemand_sendsNothingUntilTheFirstRequest() throws {
    let future = Future<Int, Never> { $0(.success(8)) }
    let recorder = RecordingSubscriber<Int, Never>(initialDemand: nil)
    future.subscribe(recorder)
    #expect(recorder.events == [.subscription])
    try #require(recorder.subscription).request(.max(1))
    #expect(recorder.events == [.subscription, .value(8), .completion(.finished)])
  }

  @Test func noDemandWhenResolvedLater_waitsForTheRequest() throws {
    let promise = Promise<Int, Never>()
    let recorder = RecordingSubscriber<Int, Never>(initialDemand: nil)
    promise.future.subscribe(recorder)
    promise.resolve(2)
    #expect(recorder.events == [.subscription])
    try #require(recorder.subscription).request(.max(3))
    #expect(recorder.events == [.subscription, .value(2), .completion(.finished)])
  }

  @Test func failure_isSentWithoutDemand() {
    let future = Future<Int, FutureTestError> { $0(.failure(.first)) }
    let recorder = RecordingSubscriber<Int, FutureTestError>(initialDemand: nil)
    future.subscribe(recorder)
    #expect(recorder.events == [.subscription, .completion(.failure(.first))])
  }

  @Test func failureLater_reachesWaitingSubscribersWithoutDemand() {
    let promise = Promise<Int, FutureTestError>()
    let recorder = RecordingSubscriber<Int, FutureTestError>(initialDemand: nil)
    promise.future.subscribe(recorder)
    promise.reject(.second)
    #expect(recorder.events == [.subscription, .completion(.failure(.second))])
  }

  @Test func demandInsideReceiveSubscription_deliversRightAfterItReturns() {
    let future = Future<Int, Never> { $0(.success(1)) }
    let order = LockedState<[String]>([])
    let subscriber = AnySubscriber<Int, Never>(
      receiveSubscription: { subscription in
        order.withLock { $0.append("subscription begins") }
        subscription.request(.max(1))
        order.withLock { $0.append("subscription ends") }
      },
      receiveValue: { value in
        order.withLock { $0.append("value \(value)") }
        return .none
      },
      receiveCompletion: { _ in order.withLock { $0.append("finished") } }
    )
    future.subscribe(subscriber)
    #expect(
      order.withLock { $0 } == ["subscription begins", "subscription ends", "value 1", "finished"]
    )
  }

  @Test func cancelBeforeResolution_sendsNothing() throws {
    let promise = Promise<Int, Never>()
    let recorder = RecordingSubscriber<Int, Never>()
    promise.future.subscribe(recorder)
    try #require(recorder.subscription).cancel()
    promise.resolve(1)
    #expect(recorder.events == [.subscription])
  }

  @Test func cancelFromReceiveValue_sendsNoCompletion() {
    let future = Future<Int, Never> { $0(.success(1)) }
    let cancelling = CancellingSubscriber()
    future.subscribe(cancelling)
    #expect(cancelling.events.withLock { $0 } == ["value 1"])
  }

  @Test func cancelTwice_isHarmless() throws {
    let promise = Promise<Int, Never>()
    let recorder = RecordingSubscriber<Int, Never>()
    promise.future.subscribe(recorder)
    let subscription = try #require(recorder.subscription)
    subscription.cancel()
    subscription.cancel()
    promise.resolve(1)
    #expect(recorder.events == [.subscription])
  }

  @Test func oneSubscriberCancels_othersStillReceive() throws {
    let promise = Promise<Int, Never>()
    let leaving = RecordingSubscriber<Int, Never>()
    let staying = RecordingSubscriber<Int, Never>()
    promise.future.subscribe(leaving)
    promise.future.subscribe(staying)
    try #require(leaving.subscription).cancel()
    promise.resolve(4)
    #expect(leaving.events == [.subscription])
    #expect(staying.events == [.subscription, .value(4), .completion(.finished)])
  }

  @Test func cancelledSubscriber_isReleased() throws {
    let promise = Promise<Int, Never>()
    weak var weakRecorder: RecordingSubscriber<Int, Never>?
    do {
      let recorder = RecordingSubscriber<Int, Never>()
      weakRecorder = recorder
      promise.future.subscribe(recorder)
      try #require(recorder.subscription).cancel()
    }
    #expect(weakRecorder == nil)
  }

  @Test func completedSubscriber_isReleased() {
    let promise = Promise<Int, Never>()
    weak var weakRecorder: RecordingSubscriber<Int, Never>?
    do {
      let recorder = RecordingSubscriber<Int, Never>()
      weakRecorder = recorder
      promise.future.subscribe(recorder)
      promise.resolve(1)
    }
    #expect(weakRecorder == nil)
  }

  @Test func subscription_describesItselfAsFuture() {
    let recorder = RecordingSubscriber<Int, Never>(initialDemand: nil)
    Future<Int, Never> { _ in }.subscribe(recorder)
    #expect(recorder.subscriptionDescription == "Future")
  }

  @Test func sink_receivesTheValue() {
    let received = LockedState<[Int]>([])
    let cancellable = Future<Int, Never> { $0(.success(9)) }.sink { value in
      received.withLock { $0.append(value) }
    }
    #expect(received.withLock { $0 } == [9])
    cancellable.cancel()
  }

  @Test func promiseCalledFromAnotherThread_reachesTheSubscriber() async {
    let future = Future<Int, Never> { promise in
      DispatchQueue.global().async { promise(.success(6)) }
    }
    let recorder = RecordingSubscriber<Int, Never>()
    future.subscribe(recorder)
    #expect(await future.value == 6)
    await recorder.waitForCompletion()
    #expect(recorder.events == [.subscription, .value(6), .completion(.finished)])
  }

  @Test func subscription_mirrorShowsTheFutureAndDemand() throws {
    // The differential oracle's `Future -`: as Combine's, the mirror shows the future as
    // `parent` and `subject`, the `downstream` and `hasAnyDemand`; once the subscription has
    // ended, what it let go of is nil.
    let recorder = RecordingSubscriber<Int, TestError>(initialDemand: nil)
    var fulfil: Future<Int, TestError>.Promise?
    let future = Future<Int, TestError> { fulfil = $0 }
    future.subscribe(recorder)
    let subscription = try #require(recorder.subscription)
    func children() -> [String] {
      Mirror(reflecting: subscription).children.map { "\($0.label ?? "_"): \($0.value)" }
    }
    let labels = Mirror(reflecting: subscription).children.map(\.label)
    #expect(labels == ["parent", "downstream", "hasAnyDemand", "subject"])
    #expect(children()[0].hasPrefix("parent: Optional(FutureKit.Future<"))
    #expect(children()[2] == "hasAnyDemand: false")
    subscription.request(.max(1))
    #expect(children()[2] == "hasAnyDemand: true")
    fulfil?(.success(1))
    #expect(recorder.values == [1])
    #expect(
      children() == ["parent: nil", "downstream: nil", "hasAnyDemand: false", "subject: nil"]
    )
  }
}

/// Cancels its subscription from inside `receive(_:)` and records what it receives.
private final class CancellingSubscriber: Subscriber, Sendable {
  typealias Input = Int
  typealias Failure = Never

  let events = LockedState<[String]>([])
  private let subscription = LockedState<(any Subscription)?>(nil)

  func receive(subscription: any Subscription) {
    self.subscription.withLock { $0 = subscription }
    subscription.request(.unlimited)
  }

  func receive(_ input: Int) -> Subscribers.Demand {
    events.withLock { $0.append("value \(input)") }
    subscription.withLock { $0 }?.cancel()
    return .none
  }

  func receive(completion: Subscribers.Completion<Never>) {
    events.withLock { $0.append("completion") }
  }
}

/// A reference held inside a result, to check that the future releases what it stores.
private final class FutureLargePayload: Sendable {}

/// A value that exactly fills an existential's inline buffer (three words) and holds references.
private struct FutureThreeWordValue: Equatable, Sendable {
  var text: String
  var payload: FutureLargePayload

  static func == (lhs: Self, rhs: Self) -> Bool {
    lhs.text == rhs.text && lhs.payload === rhs.payload
  }
}

/// A value too large for an existential's inline buffer (more than three words).
private struct FutureLargeValue: Equatable, Sendable {
  var first: Int
  var second: Int
  var third: Int
  var fourth: Int
  var text: String
  var payload: FutureLargePayload

  static func == (lhs: Self, rhs: Self) -> Bool {
    (lhs.first, lhs.second, lhs.third, lhs.fourth, lhs.text)
      == (rhs.first, rhs.second, rhs.third, rhs.fourth, rhs.text) && lhs.payload === rhs.payload
  }
}

/// A failure too large for an existential's inline buffer.
private struct FutureLargeError: Error, Equatable {
  var codes: [Int]
  var message: String
  var first: Int
  var second: Int
}
