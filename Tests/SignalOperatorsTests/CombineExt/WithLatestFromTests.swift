import Dispatch
import SignalOperators
import StreamCombineExt
import StreamCore
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct WithLatestFromTests {
  let upstream = TestPublisher<Int, TestError>()
  let other = TestPublisher<String, TestError>()

  // Issue 15: every subscription has a description and a mirror.
  @Test func subscription_mirrorsDownstreamBothSubscriptionsAndTheLatest() throws {
    let recorder = RecordingSubscriber<String, TestError>(initialDemand: .max(1))
    upstream.withLatestFrom(other) { "\($0)\($1)" }.subscribe(recorder)
    let subscription = try #require(recorder.subscription)
    #expect(String(describing: subscription) == "WithLatestFrom")
    let playground = subscription as? any CustomPlaygroundDisplayConvertible
    #expect(playground?.playgroundDescription as? String == "WithLatestFrom")
    other.send("x")
    let children = { Mirror(reflecting: subscription).children }
    #expect(
      children().map(\.label) == [
        "downstream", "upstreamSubscription", "otherSubscription", "latest",
      ]
    )
    #expect(children().first?.value as? RecordingSubscriber<String, TestError> === recorder)
    #expect(
      children().dropFirst().map { String(describing: $0.value) }
        == ["Optional(TestPublisher)", "Optional(TestPublisher)", "Optional(\"x\")"]
    )
    subscription.cancel()
    #expect(children().map { String(describing: $0.value) } == ["nil", "nil", "nil", "nil"])
  }

  @Test func upstream_isSubscribedAtTheOthersFirstValue_thenCombinedWithItsLatest() {
    let recorder = RecordingSubscriber<String, TestError>()
    upstream.withLatestFrom(other) { "\($0)\($1)" }.subscribe(recorder)
    #expect(upstream.subscriptionCount == 0)
    upstream.send(1)  // no subscriber yet: goes nowhere
    other.send("a")
    #expect(upstream.requests == [.demand(.unlimited)])
    upstream.send(2)
    upstream.send(3)
    other.send("b")
    other.send("c")
    upstream.send(4)
    #expect(recorder.values == ["2a", "3a", "4c"])
    #expect(recorder.subscriptionDescription == "WithLatestFrom")
  }

  @Test func withoutSelector_publishesTheOthersLatestValue() {
    let recorder = RecordingSubscriber<String, TestError>()
    upstream.withLatestFrom(other).subscribe(recorder)
    other.send("a")
    upstream.send(1)
    other.send("b")
    upstream.send(2)
    upstream.send(3)
    #expect(recorder.values == ["a", "b", "b"])
  }

  @Test func twoOthers_publishOnceBothHaveAValue() {
    let third = TestPublisher<Int, TestError>()
    let plain = RecordingSubscriber<String, TestError>()
    let selected = RecordingSubscriber<String, TestError>()
    upstream.withLatestFrom(other, third).map { "\($0.0)\($0.1)" }.subscribe(plain)
    upstream.withLatestFrom(other, third) { "\($0)-\($1.0)\($1.1)" }.subscribe(selected)
    other.send("a")
    upstream.send(1)
    third.send(7)
    upstream.send(2)
    third.send(8)
    upstream.send(3)
    #expect(plain.values == ["a7", "a8"])
    #expect(selected.values == ["2-a7", "3-a8"])
  }

  @Test func threeOthers_publishOnceAllHaveAValue() {
    let third = TestPublisher<Int, TestError>()
    let fourth = TestPublisher<Bool, TestError>()
    let plain = RecordingSubscriber<String, TestError>()
    let selected = RecordingSubscriber<String, TestError>()
    upstream.withLatestFrom(other, third, fourth).map { "\($0.0)\($0.1)\($0.2)" }
      .subscribe(plain)
    upstream.withLatestFrom(other, third, fourth) { "\($0)-\($1.0)\($1.1)\($1.2)" }
      .subscribe(selected)
    other.send("a")
    third.send(7)
    upstream.send(1)
    fourth.send(true)
    upstream.send(2)
    #expect(plain.values == ["a7true"])
    #expect(selected.values == ["2-a7true"])
  }

  @Test func aCurrentValueOther_isThereForTheFirstValue() {
    let recorder = RecordingSubscriber<String, Never>()
    Just(1).withLatestFrom(CurrentValueSubject<String, Never>("x")) { "\($0)\($1)" }
      .subscribe(recorder)
    #expect(recorder.events == [.subscription, .value("1x"), .completion(.finished)])
  }

  @Test func upstreamFinishing_finishesAndCancelsOther() {
    let recorder = RecordingSubscriber<String, TestError>()
    upstream.withLatestFrom(other).subscribe(recorder)
    other.send("a")
    upstream.send(1)
    upstream.send(completion: .finished)
    other.send("b")
    #expect(recorder.events == [.subscription, .value("a"), .completion(.finished)])
    #expect(other.requests == [.demand(.unlimited), .cancel])
  }

  @Test func upstreamFailing_failsAndCancelsOther() {
    let recorder = RecordingSubscriber<String, TestError>()
    upstream.withLatestFrom(other).subscribe(recorder)
    other.send("a")
    upstream.send(completion: .failure(TestError(code: 1)))
    #expect(recorder.events == [.subscription, .completion(.failure(TestError(code: 1)))])
    #expect(other.requests == [.demand(.unlimited), .cancel])
  }

  @Test func otherFinishing_endsNothing_itsLastValueGoesOnBeingUsed() {
    let recorder = RecordingSubscriber<String, TestError>()
    upstream.withLatestFrom(other).subscribe(recorder)
    other.send("a")
    other.send(completion: .finished)
    upstream.send(1)
    upstream.send(2)
    #expect(recorder.events == [.subscription, .value("a"), .value("a")])
    #expect(!upstream.requests.contains(.cancel))
  }

  @Test func otherFailing_failsAndCancelsUpstream() {
    let recorder = RecordingSubscriber<String, TestError>()
    upstream.withLatestFrom(other).subscribe(recorder)
    other.send("a")
    upstream.send(1)
    other.send(completion: .failure(TestError(code: 2)))
    upstream.send(2)
    #expect(
      recorder.events == [.subscription, .value("a"), .completion(.failure(TestError(code: 2)))]
    )
    #expect(upstream.requests == [.demand(.unlimited), .cancel])
  }

  @Test func demand_goesToUpstream_otherIsAskedForUnlimited() {
    let recorder = RecordingSubscriber<String, TestError>(initialDemand: .max(2))
    upstream.withLatestFrom(other).subscribe(recorder)
    #expect(upstream.requests.isEmpty)  // kept until `other` has a value
    #expect(other.requests == [.demand(.unlimited)])
    other.send("a")
    #expect(upstream.requests == [.demand(.max(2))])
    upstream.send(2)
    upstream.send(3)
    #expect(upstream.outstandingDemand == .none)
    upstream.send(4)  // beyond demand: the test publisher drops it
    recorder.request(.max(1))
    upstream.send(5)
    #expect(recorder.values == ["a", "a", "a"])
    #expect(recorder.violations.isEmpty)
    #expect(upstream.requests == [.demand(.max(2)), .demand(.max(1))])
  }

  @Test func demandFromReceive_isPassedToUpstream() {
    let recorder = RecordingSubscriber<String, TestError>(
      initialDemand: .max(1),
      demandPerValue: .max(1)
    )
    upstream.withLatestFrom(other).subscribe(recorder)
    other.send("a")
    for value in 0..<5 { upstream.send(value) }
    #expect(recorder.values.count == 5)
    #expect(upstream.outstandingDemand == .max(1))
    #expect(upstream.violations.isEmpty)
  }

  // Item 5 of issue 39 (CombineExt's
  // `testWithResultSelectorDoesNotRetainClassBasedPublisherWithoutSendCompletion`): an upstream
  // that sends at once (`Just`) and an other that is a subject kept alive, which sends later.
  // The upstream's value waits for the other's first one instead of being dropped.
  @Test func synchronousUpstream_othersFirstValueComesLater_nothingIsDropped() {
    let subject = PassthroughSubject<String, Never>()
    let recorder = RecordingSubscriber<String, Never>()
    Just(1).withLatestFrom(subject) { "\($0)\($1)" }.subscribe(recorder)
    #expect(recorder.events == [.subscription])
    subject.send("foo")
    #expect(recorder.events == [.subscription, .value("1foo"), .completion(.finished)])
    subject.send("bar")
    #expect(recorder.values == ["1foo"])
  }

  @Test func upstreamAndOtherAreClasses_releasedAfterCancel() {
    var source: PassthroughSubject<Int, Never>? = PassthroughSubject()
    var latest: CurrentValueSubject<String, Never>? = CurrentValueSubject("x")
    weak let weakSource = source
    weak let weakLatest = latest
    let recorder = RecordingSubscriber<String, Never>()
    source?.withLatestFrom(latest!) { "\($0)\($1)" }.subscribe(recorder)
    source?.send(1)
    #expect(recorder.values == ["1x"])
    recorder.cancel()
    source = nil
    latest = nil
    #expect(weakSource == nil)
    #expect(weakLatest == nil)
  }

  @Test func otherFinishingWithoutAValue_finishes_theUpstreamIsNeverSubscribed() {
    let recorder = RecordingSubscriber<String, TestError>()
    upstream.withLatestFrom(other).subscribe(recorder)
    other.send(completion: .finished)
    #expect(recorder.events == [.subscription, .completion(.finished)])
    #expect(upstream.subscriptionCount == 0)
  }

  @Test func requestBeforeTheUpstreamSubscribes_isHeldForIt() {
    let recorder = RecordingSubscriber<String, TestError>(initialDemand: .max(3))
    let late = PassthroughSubject<Int, TestError>()
    late.subscribe(on: ImmediateScheduler.shared).withLatestFrom(other).subscribe(recorder)
    other.send("a")
    late.send(1)
    #expect(recorder.values == ["a"])
  }

  @Test func cancel_cancelsBothAndReleasesTheSubscription() {
    let recorder = RecordingSubscriber<String, TestError>()
    weak var subscription: AnyObject?
    do {
      upstream.withLatestFrom(other).subscribe(recorder)
      subscription = recorder.subscription as AnyObject?
      #expect(subscription != nil)
    }
    other.send("a")
    recorder.cancel()
    upstream.send(1)
    #expect(recorder.values.isEmpty)
    #expect(upstream.requests.last == .cancel)
    #expect(other.requests.last == .cancel)
    #expect(subscription == nil)
  }

  @Test func completion_releasesTheSubscriberAndSelector() {
    final class Probe: @unchecked Sendable {}
    weak var probe: Probe?
    let recorder = RecordingSubscriber<String, TestError>()
    do {
      let captured = Probe()
      probe = captured
      upstream.withLatestFrom(other) { _, text in
        _ = captured
        return text
      }.subscribe(recorder)
    }
    other.send("a")
    upstream.send(completion: .finished)
    #expect(recorder.completion == .finished)
    #expect(probe == nil)
  }

  @Test func concurrentSends_requestsAndCancel_keepTheContract() {
    for round in 0..<40 {
      let source = PassthroughSubject<Int, Never>()
      let latest = PassthroughSubject<Int, Never>()
      let recorder = RecordingSubscriber<Int, Never>(initialDemand: .max(10))
      source.withLatestFrom(latest) { value, other in value * 1_000 + other }.subscribe(recorder)
      latest.send(0)
      DispatchQueue.concurrentPerform(iterations: 4) { side in
        switch side {
        case 0: for value in 1...500 { source.send(value) }
        case 1: for value in 1...500 { latest.send(value % 1_000) }
        case 2: for _ in 0..<200 { recorder.request(.max(2)) }
        default: if round.isMultiple(of: 2) { recorder.cancel() }
        }
      }
      // A cancel from another thread may race the one value being delivered, as in Combine.
      let violations = recorder.violations
      #expect(violations.filter { !$0.hasSuffix("after cancel") }.isEmpty, "\(violations)")
      #expect(violations.count <= 1, "\(violations)")
      let upstreamValues = recorder.values.map { $0 / 1_000 }
      #expect(upstreamValues == upstreamValues.sorted())
      #expect(Set(upstreamValues).count == upstreamValues.count)
      #expect(recorder.values.count <= 410)
    }
  }

  @Test func concurrentSendsIntoBoth_deliveriesNeverOverlap() {
    let source = PassthroughSubject<Int, TestError>()
    let latest = PassthroughSubject<Int, TestError>()
    let recorder = ConcurrentRecorder<Int, TestError>()
    source.withLatestFrom(latest) { value, other in value * 1_000 + other }.subscribe(recorder)
    latest.send(0)
    DispatchQueue.concurrentPerform(iterations: 3) { side in
      switch side {
      case 0: for value in 0..<2_000 { source.send(value) }
      case 1: for value in 0..<2_000 { latest.send(value % 1_000) }
      default: for value in 2_000..<4_000 { source.send(value) }
      }
    }
    source.send(completion: .finished)
    #expect(recorder.values.count == 4_000)
    #expect(recorder.completion == .finished)
    #expect(recorder.violations.isEmpty)
  }

  @Test func concurrentOtherFailure_neverOverlapsAValue() {
    for _ in 0..<100 {
      let source = PassthroughSubject<Int, TestError>()
      let latest = PassthroughSubject<Int, TestError>()
      let recorder = ConcurrentRecorder<Int, TestError>()
      source.withLatestFrom(latest).subscribe(recorder)
      latest.send(1)
      DispatchQueue.concurrentPerform(iterations: 2) { side in
        if side == 0 {
          for value in 0..<200 { source.send(value) }
        } else {
          latest.send(completion: .failure(TestError()))
        }
      }
      #expect(recorder.violations.isEmpty)
      #expect(recorder.completion == .failure(TestError()))
    }
  }

  @Test func withLatestFrom_conforms() {
    PublisherConformance(
      elements: 3,
      makePublisher: {
        Publishers.Sequence<[Int], TestError>(sequence: [1, 2, 3])
          .withLatestFrom(Publishers.Sequence<[Int], TestError>(sequence: [10])) { $0 + $1 }
          .eraseToAnyPublisher()
      },
      makeFailingPublisher: {
        Record<Int, TestError>(output: [1, 2], completion: .failure(TestError()))
          .withLatestFrom(Publishers.Sequence<[Int], TestError>(sequence: [10])) { $0 + $1 }
          .eraseToAnyPublisher()
      },
      makeLongPublisher: {
        Publishers.Sequence<Range<Int>, TestError>(sequence: 0..<100_000)
          .withLatestFrom(Publishers.Sequence<[Int], TestError>(sequence: [10])) { $0 + $1 }
          .eraseToAnyPublisher()
      }
    )
    .run()
    .expectAllPassed()
  }

  @Test func withLatestFromTwo_conforms() {
    PublisherConformance(
      elements: 2,
      makePublisher: {
        Publishers.Sequence<[Int], TestError>(sequence: [1, 2])
          .withLatestFrom(
            Publishers.Sequence<[Int], TestError>(sequence: [10]),
            Publishers.Sequence<[Int], TestError>(sequence: [20])
          )
          .map { $0.0 + $0.1 }
          .eraseToAnyPublisher()
      },
      makeFailingPublisher: {
        Record<Int, TestError>(output: [1], completion: .failure(TestError()))
          .withLatestFrom(
            Publishers.Sequence<[Int], TestError>(sequence: [10]),
            Publishers.Sequence<[Int], TestError>(sequence: [20])
          )
          .map { $0.0 + $0.1 }
          .eraseToAnyPublisher()
      },
      makeLongPublisher: {
        Publishers.Sequence<Range<Int>, TestError>(sequence: 0..<100_000)
          .withLatestFrom(
            Publishers.Sequence<[Int], TestError>(sequence: [10]),
            Publishers.Sequence<[Int], TestError>(sequence: [20])
          )
          .map { $0.0 + $0.1 }
          .eraseToAnyPublisher()
      }
    )
    .run()
    .expectAllPassed()
  }
}
