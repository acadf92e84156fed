import Dispatch
import SignalOperators
import StreamConbini
import StreamCore
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct HandleEndTests {

  let upstream = TestPublisher<Int, TestError>()
  let ends = LockedState<[Subscribers.Completion<TestError>?]>([])

  private func handled() -> Publishers.HandleEnd<TestPublisher<Int, TestError>> {
    upstream.handleEnd { [ends] completion in ends.withLock { $0.append(completion) } }
  }

  // Issue 15: every subscription has a description and a mirror.
  @Test func subscription_describesItself_andMirrorsDownstreamFinishedAndUpstream() throws {
    let recorder = RecordingSubscriber<Int, TestError>(initialDemand: .max(1))
    upstream.handleEnd { _ in }.subscribe(recorder)
    let subscription = try #require(recorder.subscription)
    #expect(String(describing: subscription) == "HandleEnd")
    let playground = subscription as? any CustomPlaygroundDisplayConvertible
    #expect(playground?.playgroundDescription as? String == "HandleEnd")
    let children = { Mirror(reflecting: subscription).children }
    #expect(children().map(\.label) == ["downstream", "finished", "upstreamSubscription"])
    #expect(children().first?.value as? RecordingSubscriber<Int, TestError> === recorder)
    #expect(
      children().dropFirst().map { String(describing: $0.value) }
        == ["false", "Optional(TestPublisher)"]
    )
    upstream.send(completion: .finished)
    #expect(children().map { String(describing: $0.value) } == ["nil", "true", "nil"])
  }

  @Test func valuesThenFinished_passThroughAndClosureRunsOnceWithFinished() {
    let recorder = RecordingSubscriber<Int, TestError>()
    handled().subscribe(recorder)
    upstream.send(1)
    upstream.send(2)
    upstream.send(completion: .finished)
    #expect(recorder.events == [.subscription, .value(1), .value(2), .completion(.finished)])
    #expect(ends.withLock { $0 } == [.finished])
    #expect(recorder.violations.isEmpty)
  }

  @Test func completion_closureRunsBeforeDownstreamGetsIt() {
    let log = LockedState<[String]>([])
    let recorder = RecordingSubscriber<Int, TestError>()
    upstream.handleEnd { [recorder] completion in
      log.withLock { $0.append("end \(recorder.completion == nil ? "first" : "late")") }
      #expect(completion == .failure(TestError()))
    }
    .subscribe(recorder)
    upstream.send(completion: .failure(TestError()))
    #expect(log.withLock { $0 } == ["end first"])
    #expect(recorder.completion == .failure(TestError()))
  }

  @Test func failure_closureRunsWithTheFailure() {
    let recorder = RecordingSubscriber<Int, TestError>()
    handled().subscribe(recorder)
    upstream.send(completion: .failure(TestError()))
    #expect(ends.withLock { $0 } == [.failure(TestError())])
    #expect(recorder.events == [.subscription, .completion(.failure(TestError()))])
  }

  @Test func cancel_closureRunsWithNilOnceAndUpstreamIsCancelled() {
    let recorder = RecordingSubscriber<Int, TestError>()
    handled().subscribe(recorder)
    recorder.cancel()
    recorder.cancel()
    upstream.send(completion: .finished)
    #expect(ends.withLock { $0 } == [nil])
    #expect(upstream.requests == [.demand(.unlimited), .cancel])
    #expect(recorder.events == [.subscription])
  }

  @Test func cancelBeforeUpstreamCancel_closureSeesUpstreamStillActive() {
    let requestsAtEnd = LockedState<[TestPublisher<Int, TestError>.Request]>([])
    let recorder = RecordingSubscriber<Int, TestError>()
    upstream.handleEnd { [upstream] _ in requestsAtEnd.withLock { $0 = upstream.requests } }
      .subscribe(recorder)
    recorder.cancel()
    #expect(requestsAtEnd.withLock { $0 } == [.demand(.unlimited)])
  }

  @Test func cancelAfterCompletion_closureDoesNotRunAgain() {
    let recorder = RecordingSubscriber<Int, TestError>()
    handled().subscribe(recorder)
    upstream.send(completion: .finished)
    recorder.cancel()
    #expect(ends.withLock { $0 } == [.finished])
    #expect(upstream.requests == [.demand(.unlimited)])
  }

  @Test func demand_isPassedThroughOneToOne() {
    let recorder = RecordingSubscriber<Int, TestError>(
      initialDemand: .max(2),
      demandPerValue: .max(1)
    )
    handled().subscribe(recorder)
    upstream.send(1)
    recorder.request(.max(3))
    #expect(upstream.requests == [.demand(.max(2)), .demand(.max(3))])
    #expect(upstream.outstandingDemand == .max(5))
    #expect(upstream.violations.isEmpty)
  }

  @Test func noInitialDemand_nothingIsRequested() {
    let recorder = RecordingSubscriber<Int, TestError>(initialDemand: nil)
    handled().subscribe(recorder)
    #expect(upstream.requests.isEmpty)
  }

  @Test func cancelFromInsideReceive_closureRunsWithNilAndNoMoreValues() {
    let cancelling = CancellingSubscriber()
    handled().subscribe(cancelling)
    upstream.send(1)
    upstream.send(2)
    #expect(cancelling.values.withLock { $0 } == [1])
    #expect(ends.withLock { $0 } == [nil])
    #expect(upstream.requests == [.demand(.unlimited), .cancel])
  }

  @Test func neverSubscribed_closureRunsWithNilWhenTheConduitIsReleased() {
    let never = NeverSubscribes<Int, TestError>()
    never.handleEnd { [ends] completion in ends.withLock { $0.append(completion) } }
      .subscribe(RecordingSubscriber<Int, TestError>())
    #expect(ends.withLock { $0 } == [nil])
  }

  @Test func afterCompletion_downstreamIsReleased() {
    weak var weakRecorder: RecordingSubscriber<Int, TestError>?
    do {
      let recorder = RecordingSubscriber<Int, TestError>()
      weakRecorder = recorder
      handled().subscribe(recorder)
    }
    #expect(weakRecorder != nil)  // the upstream's subscription holds the chain
    upstream.send(completion: .finished)
    #expect(weakRecorder == nil)
  }

  @Test func afterCancel_downstreamIsReleased() {
    weak var weakRecorder: RecordingSubscriber<Int, TestError>?
    do {
      let recorder = RecordingSubscriber<Int, TestError>()
      weakRecorder = recorder
      handled().subscribe(recorder)
      recorder.cancel()
    }
    #expect(weakRecorder == nil)
  }

  @Test func cancelRacingCompletion_closureRunsExactlyOnce() {
    let runs = LockedState(0)
    for _ in 0..<200 {
      let source = TestPublisher<Int, TestError>()
      let recorder = RecordingSubscriber<Int, TestError>()
      source.handleEnd { _ in runs.withLock { $0 += 1 } }.subscribe(recorder)
      DispatchQueue.concurrentPerform(iterations: 2) { index in
        if index == 0 { recorder.cancel() } else { source.send(completion: .finished) }
      }
    }
    #expect(runs.withLock { $0 } == 200)
  }

  @Test func conformance_sequence() {
    PublisherConformance(elements: 3) { [1, 2, 3].publisher.handleEnd { _ in } }
      .run()
      .expectAllPassed(skipping: ["SC-1.05", "SC-2.04"])
  }

  @Test func conformance_failing() {
    PublisherConformance(
      elements: 0,
      makePublisher: { Empty<Int, TestError>().eraseToAnyPublisher().handleEnd { _ in } },
      makeFailingPublisher: {
        Fail<Int, TestError>(error: TestError()).eraseToAnyPublisher().handleEnd { _ in }
      }
    )
    .run()
    .expectAllPassed(skipping: ["SC-1.05", "SC-3.01", "SC-3.02"])
  }
}

/// Cancels its subscription from inside the first `receive(_:)`.
private final class CancellingSubscriber: Subscriber, Sendable {
  typealias Failure = TestError
  let values = LockedState<[Int]>([])
  let subscription = LockedState<(any Subscription)?>(nil)

  func receive(subscription: any Subscription) {
    self.subscription.withLock { $0 = subscription }
    subscription.request(.unlimited)
  }

  func receive(_ input: Int) -> Subscribers.Demand {
    values.withLock { $0.append(input) }
    let current = subscription.withLock { $0 }
    current?.cancel()
    return .none
  }

  func receive(completion: Subscribers.Completion<Failure>) {}
}

/// A publisher that drops its subscriber without ever subscribing it.
private struct NeverSubscribes<Output, Failure: Error>: Publisher {
  func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {}
}
