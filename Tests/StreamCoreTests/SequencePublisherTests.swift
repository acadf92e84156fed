import Dispatch
import StreamCore
import Testing

@Suite(.timeLimit(.minutes(5))) struct SequencePublisherTests {
  @Test func unlimitedDemand_sendsEveryElementThenFinishes() {
    let recorder = Recorder<Int, Never>()
    [1, 2, 3].publisher.subscribe(recorder)
    #expect(
      recorder.events == [
        .subscription("[1, 2, 3]"), .value(1), .value(2), .value(3), .completion(.finished),
      ]
    )
  }

  @Test func emptySequence_sendsEmptySubscriptionAndFinishes() {
    let recorder = Recorder<Int, Never>(initialDemand: nil)
    [Int]().publisher.subscribe(recorder)
    #expect(recorder.events == [.subscription("Empty"), .completion(.finished)])
  }

  @Test func customFailureType_neverFails() {
    let recorder = Recorder<Int, TestError>()
    Publishers.Sequence<[Int], TestError>(sequence: [4, 5]).subscribe(recorder)
    #expect(
      recorder.events == [.subscription("[4, 5]"), .value(4), .value(5), .completion(.finished)]
    )
  }

  @Test func maxOneAtATime_sendsOneElementPerRequest() {
    let recorder = Recorder<Int, Never>(initialDemand: .max(1))
    [1, 2, 3].publisher.subscribe(recorder)
    #expect(recorder.events == [.subscription("[1, 2, 3]"), .value(1)])
    recorder.request(.max(1))
    #expect(recorder.values == [1, 2])
    #expect(recorder.completions.isEmpty)
    recorder.request(.max(1))
    #expect(
      recorder.events == [
        .subscription("[1, 2, 3]"), .value(1), .value(2), .value(3), .completion(.finished),
      ]
    )
  }

  @Test func demandForExactlyAll_finishesWithoutFurtherDemand() {
    let recorder = Recorder<Int, Never>(initialDemand: .max(3))
    [1, 2, 3].publisher.subscribe(recorder)
    #expect(recorder.values == [1, 2, 3])
    #expect(recorder.completions == [.finished])
  }

  @Test func demandReturnedFromReceive_addsUp() {
    let recorder = Recorder<Int, Never>(
      initialDemand: .max(1),
      demandPerValue: { $0 == 1 ? .max(2) : .none }
    )
    (1...10).publisher.subscribe(recorder)
    #expect(recorder.values == [1, 2, 3])
    #expect(recorder.completions.isEmpty)
  }

  @Test func demandToppedUpFromReceive_sendsEverything() {
    let recorder = Recorder<Int, Never>(initialDemand: .max(1), demandPerValue: { _ in .max(1) })
    (1...5).publisher.subscribe(recorder)
    #expect(recorder.values == [1, 2, 3, 4, 5])
    #expect(recorder.completions == [.finished])
  }

  @Test func unlimitedReturnedFromReceive_sendsEverything() {
    let recorder = Recorder<Int, Never>(
      initialDemand: .max(1),
      demandPerValue: { $0 == 2 ? .unlimited : .max(0) }
    )
    (1...5).publisher.subscribe(recorder)
    #expect(recorder.values == [1])
    recorder.request(.max(1))
    #expect(recorder.values == [1, 2, 3, 4, 5])
    #expect(recorder.completions == [.finished])
  }

  @Test func requestFromInsideReceive_addsDemandWithoutRecursing() {
    let depths = DepthProbe()
    let recorder = Recorder<Int, Never>(
      initialDemand: .max(1),
      onValue: { recorder, _ in
        depths.enter()
        recorder.request(.max(1))
        depths.leave()
      }
    )
    (1...4).publisher.subscribe(recorder)
    #expect(recorder.values == [1, 2, 3, 4])
    #expect(recorder.completions == [.finished])
    #expect(depths.deepest == 1)
  }

  @Test func noDemand_sendsNothing() {
    let recorder = Recorder<Int, Never>(initialDemand: nil)
    [1, 2, 3].publisher.subscribe(recorder)
    #expect(recorder.events == [.subscription("[1, 2, 3]")])
  }

  @Test func millionElementsOneAtATimeFromInsideReceive_doNotOverflowTheStack() {
    let subscriber = OneAtATime()
    (0..<1_000_000).publisher.subscribe(subscriber)
    #expect(subscriber.count == 1_000_000)
    #expect(subscriber.last == 999_999)
    #expect(subscriber.finished)
  }

  @Test func millionElementsOneAtATimeFromReceiveDemand_doNotOverflowTheStack() {
    let subscriber = OneAtATime(requestInside: false)
    (0..<1_000_000).publisher.subscribe(subscriber)
    #expect(subscriber.count == 1_000_000)
    #expect(subscriber.finished)
  }

  @Test func cancelBeforeRequest_sendsNothing() {
    let recorder = Recorder<Int, Never>(initialDemand: nil)
    [1, 2, 3].publisher.subscribe(recorder)
    recorder.cancel()
    recorder.request(.max(2))
    #expect(recorder.events == [.subscription("[1, 2, 3]")])
  }

  @Test func cancelTwice_isHarmless() {
    let recorder = Recorder<Int, Never>(initialDemand: .max(1))
    [1, 2, 3].publisher.subscribe(recorder)
    recorder.cancel()
    recorder.cancel()
    recorder.request(.max(1))
    #expect(recorder.events == [.subscription("[1, 2, 3]"), .value(1)])
  }

  @Test func cancelInsideReceiveWithUnlimitedDemand_stopsDelivery() {
    let recorder = Recorder<Int, Never>(
      onValue: { recorder, value in if value == 2 { recorder.cancel() } }
    )
    (1...5).publisher.subscribe(recorder)
    #expect(recorder.events == [.subscription("1...5"), .value(1), .value(2)])
  }

  @Test func cancelInsideReceiveWithFiniteDemand_stopsDelivery() {
    let recorder = Recorder<Int, Never>(
      initialDemand: .max(4),
      onValue: { recorder, value in if value == 2 { recorder.cancel() } }
    )
    (1...5).publisher.subscribe(recorder)
    #expect(recorder.events == [.subscription("1...5"), .value(1), .value(2)])
  }

  @Test func cancelInsideReceiveOfTheLastElement_doesNotFinish() {
    let recorder = Recorder<Int, Never>(
      onValue: { recorder, value in if value == 3 { recorder.cancel() } }
    )
    [1, 2, 3].publisher.subscribe(recorder)
    #expect(recorder.values == [1, 2, 3])
    #expect(recorder.completions.isEmpty)
  }

  @Test func cancelAndRequestInsideReceive_stopsDelivery() {
    let recorder = Recorder<Int, Never>(
      initialDemand: .max(1),
      onValue: { recorder, _ in
        recorder.cancel()
        recorder.request(.max(1))
      }
    )
    [1, 2, 3].publisher.subscribe(recorder)
    #expect(recorder.events == [.subscription("[1, 2, 3]"), .value(1)])
  }

  @Test func cancelFromAnotherThreadDuringUnlimitedDelivery_stopsDelivery() {
    let started = DispatchSemaphore(value: 0)
    let done = DispatchSemaphore(value: 0)
    let recorder = Recorder<Int, Never>(
      initialDemand: nil,
      onValue: { _, value in if value == 1_000 { started.signal() } }
    )
    (0..<Int.max).lazy.map { $0 }.publisher.subscribe(recorder)
    DispatchQueue.global().async {
      recorder.request(.unlimited)
      done.signal()
    }
    #expect(started.wait(timeout: .now() + 60) == .success)
    recorder.cancel()  // ends the delivery either way
    #expect(done.wait(timeout: .now() + 60) == .success)
    let count = recorder.values.count
    #expect(count >= 1_001)
    #expect(recorder.completions.isEmpty)
    recorder.request(.max(1))
    #expect(recorder.values.count == count)
  }

  @Test func concurrentRequests_deliverExactlyTheDemandInOrder() {
    let recorder = Recorder<Int, Never>(initialDemand: nil)
    (0..<100_000).publisher.subscribe(recorder)
    DispatchQueue.concurrentPerform(iterations: 2_000) { _ in
      recorder.request(.max(1))
    }
    #expect(recorder.values == Array(0..<2_000))
    #expect(recorder.completions.isEmpty)
  }

  @Test func concurrentRequestsAndCancel_neverFinishOrOverdeliver() {
    for _ in 0..<50 {
      let recorder = Recorder<Int, Never>(initialDemand: nil)
      (0..<1_000).publisher.subscribe(recorder)
      DispatchQueue.concurrentPerform(iterations: 8) { index in
        if index == 4 {
          recorder.cancel()
        } else {
          recorder.request(.max(10))
        }
      }
      let values = recorder.values
      #expect(values.count <= 70)
      #expect(values == Array(0..<values.count))
      #expect(recorder.completions.isEmpty)
    }
  }

  @Test func eachSubscriber_iteratesTheSequenceAgain() {
    let publisher = [1, 2].publisher
    let first = Recorder<Int, Never>()
    let second = Recorder<Int, Never>()
    publisher.subscribe(first)
    publisher.subscribe(second)
    #expect(first.values == [1, 2])
    #expect(second.values == [1, 2])
  }

  @Test func lazySequence_isReadOneElementAhead() {
    let reads = Counter()
    let recorder = Recorder<Int, Never>(initialDemand: nil)
    (1...5).lazy.map { value in
      reads.increment()
      return value * 10
    }.publisher.subscribe(recorder)
    #expect(reads.value == 1)
    recorder.request(.max(2))
    #expect(recorder.values == [10, 20])
    #expect(reads.value == 3)
  }

  @Test func activeSubscription_describesItselfAsTheSequence() throws {
    let recorder = Recorder<Int, Never>(initialDemand: nil)
    [1, 2, 3].publisher.subscribe(recorder)
    let subscription = try #require(recorder.subscription)
    #expect(String(describing: subscription) == "[1, 2, 3]")
    #expect(
      (subscription as? any CustomPlaygroundDisplayConvertible)?.playgroundDescription as? String
        == "[1, 2, 3]"
    )
    let mirror = Mirror(reflecting: subscription)
    #expect(mirror.children.map(\.label) == ["sequence"])
    #expect(mirror.children.first?.value as? [Int] == [1, 2, 3])
  }

  @Test func cancelledSubscription_describesItselfAsSequence() throws {
    let recorder = Recorder<Int, Never>(initialDemand: .max(1))
    [1, 2, 3].publisher.subscribe(recorder)
    let subscription = try #require(recorder.subscription)
    subscription.cancel()
    #expect(String(describing: subscription) == "Sequence")
    // As Combine's: nothing left to send.
    let mirror = Mirror(reflecting: subscription)
    #expect(mirror.children.map(\.label) == ["sequence"])
    #expect(mirror.children.first?.value as? [Int] == [])
  }

  @Test func finishedSubscription_describesItselfAsSequenceAndReleasesTheSubscriber() throws {
    weak var weakKeeper: Keeper?
    var subscription: (any Subscription)?
    do {
      let keeper = Keeper(demand: .unlimited)
      weakKeeper = keeper
      [1, 2, 3].publisher.subscribe(keeper)
      #expect(keeper.values == [1, 2, 3])
      #expect(keeper.finished)
      subscription = keeper.subscription
    }
    #expect(weakKeeper == nil)
    #expect(String(describing: try #require(subscription)) == "Sequence")
  }

  @Test func finishedOneAtATime_releasesTheSubscriber() {
    weak var weakKeeper: Keeper?
    var subscription: (any Subscription)?
    do {
      let keeper = Keeper(demand: .max(1), demandPerValue: .max(1))
      weakKeeper = keeper
      [1, 2, 3].publisher.subscribe(keeper)
      #expect(keeper.finished)
      subscription = keeper.subscription
    }
    #expect(subscription != nil)
    #expect(weakKeeper == nil)
  }

  @Test func cancel_releasesTheSubscriber() {
    weak var weakRecorder: Recorder<Int, Never>?
    do {
      let recorder = Recorder<Int, Never>(initialDemand: .max(1))
      weakRecorder = recorder
      [1, 2, 3].publisher.subscribe(recorder)
      recorder.cancel()
    }
    #expect(weakRecorder == nil)
  }

  @Test func cancelInsideReceive_releasesTheSubscriber() {
    weak var weakRecorder: Recorder<Int, Never>?
    do {
      let recorder = Recorder<Int, Never>(onValue: { recorder, _ in recorder.cancel() })
      weakRecorder = recorder
      [1, 2, 3].publisher.subscribe(recorder)
      #expect(recorder.values == [1])
    }
    #expect(weakRecorder == nil)
  }

  @Test func cancel_releasesTheSequence() {
    weak var weakElement: Counter?
    do {
      let recorder = Recorder<Counter, Never>(initialDemand: nil)
      do {
        let element = Counter()
        weakElement = element
        [element, Counter()].publisher.subscribe(recorder)
      }
      #expect(weakElement != nil)
      recorder.cancel()
      #expect(recorder.subscription != nil)
    }
    #expect(weakElement == nil)
  }

  @Test func equalSequences_areEqual() {
    #expect([1, 2].publisher == [1, 2].publisher)
    #expect([1, 2].publisher != [2, 1].publisher)
    #expect((1...3).publisher.sequence == 1...3)
  }

  @Test func requestNone_isIgnored_asCombineDoes() {
    let recorder = Recorder<Int, Never>(initialDemand: nil)
    [1, 2].publisher.subscribe(recorder)
    recorder.request(.none)
    #expect(recorder.values.isEmpty)
    recorder.request(.max(1))
    #expect(recorder.values == [1])
  }
}

/// Requests one element at a time: from inside `receive(_:)` through the subscription, or by
/// returning `.max(1)`. Counts instead of recording, so a million elements stay cheap.
private final class OneAtATime: Subscriber {
  typealias Input = Int
  typealias Failure = Never

  private let requestInside: Bool
  private var subscription: (any Subscription)?
  private(set) var count = 0
  private(set) var last = -1
  private(set) var finished = false

  init(requestInside: Bool = true) {
    self.requestInside = requestInside
  }

  func receive(subscription: any Subscription) {
    self.subscription = subscription
    subscription.request(.max(1))
  }

  func receive(_ input: Int) -> Subscribers.Demand {
    count += 1
    last = input
    if requestInside {
      subscription?.request(.max(1))
      return .none
    }
    return .max(1)
  }

  func receive(completion: Subscribers.Completion<Never>) {
    finished = true
    subscription = nil
  }
}

/// Keeps its subscription after the completion, so a test can see whether the subscription
/// still holds on to it.
private final class Keeper: Subscriber {
  typealias Input = Int
  typealias Failure = Never

  private(set) var subscription: (any Subscription)?
  private(set) var values: [Int] = []
  private(set) var finished = false
  private let demand: Subscribers.Demand
  private let demandPerValue: Subscribers.Demand

  init(demand: Subscribers.Demand, demandPerValue: Subscribers.Demand = .none) {
    self.demand = demand
    self.demandPerValue = demandPerValue
  }

  func receive(subscription: any Subscription) {
    self.subscription = subscription
    subscription.request(demand)
  }

  func receive(_ input: Int) -> Subscribers.Demand {
    values.append(input)
    return demandPerValue
  }

  func receive(completion: Subscribers.Completion<Never>) {
    finished = true
  }
}

/// Tracks how deeply nested `enter`/`leave` calls go.
// Sendable: all mutable state is guarded by `lock`.
private final class DepthProbe: @unchecked Sendable {
  private let lock = Lock()
  private var depth = 0
  private var _deepest = 0

  var deepest: Int { lock.withLock { _deepest } }

  func enter() {
    lock.withLock {
      depth += 1
      _deepest = max(_deepest, depth)
    }
  }

  func leave() {
    lock.withLock { depth -= 1 }
  }
}

/// A thread-safe counter; also an object whose release tests can watch.
// Sendable: all mutable state is guarded by `lock`.
private final class Counter: @unchecked Sendable {
  private let lock = Lock()
  private var count = 0

  var value: Int { lock.withLock { count } }

  func increment() {
    lock.withLock { count += 1 }
  }
}
