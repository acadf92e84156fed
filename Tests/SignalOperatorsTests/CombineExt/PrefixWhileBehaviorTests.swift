import SignalOperators
import StreamCombineExt
import StreamCore
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct PrefixWhileBehaviorTests {
  let upstream = TestPublisher<Int, TestError>()

  @Test func inclusive_publishesTheEndingValueThenFinishes() {
    let recorder = RecordingSubscriber<Int, TestError>()
    upstream.prefix(while: { $0 < 3 }, behavior: .inclusive).subscribe(recorder)
    upstream.send(1)
    upstream.send(2)
    upstream.send(5)
    upstream.send(1)
    #expect(
      recorder.events == [.subscription, .value(1), .value(2), .value(5), .completion(.finished)]
    )
    #expect(upstream.requests == [.demand(.unlimited), .cancel])
    #expect(recorder.subscriptionDescription == "PrefixWhile")
  }

  @Test func exclusive_isPrefixWhile() {
    let recorder = RecordingSubscriber<Int, TestError>()
    upstream.prefix(while: { $0 < 3 }, behavior: .exclusive).subscribe(recorder)
    upstream.send(1)
    upstream.send(5)
    #expect(recorder.events == [.subscription, .value(1), .completion(.finished)])
    #expect(upstream.requests == [.demand(.unlimited), .cancel])
  }

  @Test func inclusive_whilePredicateHolds_behavesAsAOneToOneOperator() {
    PassThroughScenarios(
      make: { (upstream: TestPublisher<Int, TestError>) in
        upstream.prefix(while: { _ in true }, behavior: .inclusive)
      },
      inputs: [1, 2, 3],
      expected: ["1", "2", "3"],
      error: TestError(),
      description: "PrefixWhile"
    ).runAll()
  }

  @Test func inclusive_endingValueNeedsDemand() {
    let recorder = RecordingSubscriber<Int, TestError>(initialDemand: .max(1))
    upstream.prefix(while: { $0 < 3 }, behavior: .inclusive).subscribe(recorder)
    upstream.send(9)
    #expect(recorder.events == [.subscription, .value(9), .completion(.finished)])
    #expect(upstream.requests == [.demand(.max(1)), .cancel])
    #expect(upstream.violations.isEmpty)
  }

  @Test func inclusive_subscriptionReleasedAfterTheEndingValue() {
    let recorder = RecordingSubscriber<Int, TestError>()
    weak var subscription: AnyObject?
    do {
      upstream.prefix(while: { $0 < 3 }, behavior: .inclusive).subscribe(recorder)
      subscription = recorder.subscription as AnyObject?
      #expect(subscription != nil)
    }
    upstream.send(4)
    #expect(subscription == nil)
  }

  @Test func inclusive_conforms() {
    PublisherConformance(
      elements: 3,
      makePublisher: {
        [1, 2, 3, 4].publisher.setFailureType(to: TestError.self)
          .prefix(while: { $0 < 3 }, behavior: .inclusive)
      },
      makeFailingPublisher: {
        Fail<Int, TestError>(error: TestError())
          .prefix(while: { $0 < 3 }, behavior: .inclusive)
      },
      makeLongPublisher: {
        (0..<1_000_000).map { $0 }.publisher
          .setFailureType(to: TestError.self)
          .prefix(while: { _ in true }, behavior: .inclusive)
      }
    )
    .run()
    .expectAllPassed()
  }
}
