import Dispatch
import SignalOperators
import StreamCore
import StreamSnail
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct SnailSkipTakeForwardTests {
  let upstream = TestPublisher<Int, SnailOpsError>()

  @Test func skip_dropsFirstValues_passesCompletion() {
    let recorder = RecordingSubscriber<Int, SnailOpsError>()
    upstream.skip(first: 2).subscribe(recorder)
    for value in 1...4 { upstream.send(value) }
    upstream.send(completion: .failure(.boom))
    #expect(recorder.values == [3, 4])
    #expect(recorder.completion == .failure(.boom))
    #expect(recorder.subscriptionDescription == "Drop")
  }

  @Test func skip_conforms() {
    PublisherConformance(
      elements: 3,
      makePublisher: {
        Publishers.Sequence<[Int], SnailOpsError>(sequence: [0, 1, 2, 3, 4]).skip(first: 2)
          .eraseToAnyPublisher()
      },
      makeFailingPublisher: {
        Record<Int, SnailOpsError>(output: [1, 2], completion: .failure(.boom)).skip(first: 1)
          .eraseToAnyPublisher()
      }
    )
    .run()
    .expectAllPassed(skipping: ["SC-1.05"])
  }

  @Test func take_finishesAfterCount_andCancelsUpstream() {
    let recorder = RecordingSubscriber<Int, SnailOpsError>()
    upstream.take(first: 2).subscribe(recorder)
    upstream.send(1)
    upstream.send(2)
    upstream.send(3)
    #expect(recorder.values == [1, 2])
    #expect(recorder.completion == .finished)
    #expect(upstream.requests.last == .cancel)
  }

  @Test func takeZero_finishesAtOnce() {
    let recorder = RecordingSubscriber<Int, SnailOpsError>()
    upstream.take(first: 0).subscribe(recorder)
    #expect(recorder.completion == .finished)
    #expect(recorder.values.isEmpty)
  }

  @Test func take_conforms() {
    PublisherConformance(
      elements: 2,
      makePublisher: {
        Publishers.Sequence<[Int], SnailOpsError>(sequence: [0, 1, 2, 3]).take(first: 2)
      }
    )
    .run()
    .expectAllPassed(skipping: ["SC-1.05", "SC-2.04"])
  }

  @Test func forward_sendsValuesAndCompletionIntoSubject() {
    let subject = PassthroughSubject<Int, SnailOpsError>()
    let recorder = RecordingSubscriber<Int, SnailOpsError>()
    subject.subscribe(recorder)
    let token = upstream.forward(to: subject)
    #expect(upstream.requests == [.demand(.unlimited)])
    upstream.send(1)
    upstream.send(2)
    upstream.send(completion: .failure(.boom))
    #expect(recorder.values == [1, 2])
    #expect(recorder.completion == .failure(.boom))
    _ = token
  }

  @Test func forward_cancel_stopsForwarding() {
    let subject = CurrentValueSubject<Int, SnailOpsError>(0)
    let token = upstream.forward(to: subject)
    upstream.send(1)
    token.cancel()
    upstream.send(2)
    #expect(subject.value == 1)
    #expect(upstream.requests == [.demand(.unlimited), .cancel])
  }

  // Snail's `forward(to:)` returned nothing: the forwarding lives as long as the source.
  @Test func forward_resultIgnored_keepsForwardingUntilTheSourceEnds() {
    let source = PassthroughSubject<Int, SnailOpsError>()
    let target = PassthroughSubject<Int, SnailOpsError>()
    let recorder = RecordingSubscriber<Int, SnailOpsError>()
    target.subscribe(recorder)
    source.forward(to: target)
    source.send(1)
    source.send(2)
    source.send(completion: .failure(.boom))
    source.send(3)
    #expect(recorder.values == [1, 2])
    #expect(recorder.completion == .failure(.boom))
  }

  @Test func forward_releasesTheTargetOnceTheSourceEnds() {
    let source = PassthroughSubject<Int, Never>()
    weak var weakTarget: CurrentValueSubject<Int, Never>?
    do {
      let target = CurrentValueSubject<Int, Never>(0)
      weakTarget = target
      source.forward(to: target)
    }
    source.send(1)
    #expect(weakTarget?.value == 1)
    source.send(completion: .finished)
    #expect(weakTarget == nil)
  }

  @Test func forward_dispose_stopsAndReleasesTheTarget() {
    let source = PassthroughSubject<Int, Never>()
    weak var weakTarget: CurrentValueSubject<Int, Never>?
    let subscription: SnailSubscription
    do {
      let target = CurrentValueSubject<Int, Never>(0)
      weakTarget = target
      subscription = source.forward(to: target)
    }
    source.send(1)
    #expect(weakTarget?.value == 1)
    subscription.dispose()
    #expect(weakTarget == nil)
    source.send(2)
  }

  @Test func block_firstValue_returnsItAndCancels() throws {
    let result = upstreamSendingOnSubscribe([5, 6]).block()
    #expect(try result.get() == 5)
  }

  @Test func block_requestsOneAndCancelsAfterValue() throws {
    let queue = DispatchQueue(label: "snail.block.sender")
    let upstream = self.upstream
    queue.asyncAfter(deadline: .now()) {
      // Bounded: if block(timeout:) never requests, it times out and the test fails.
      guard spinUntil({ upstream.outstandingDemand != .none }) else { return }
      upstream.send(7)
    }
    let result = upstream.block(timeout: .seconds(60))
    #expect(try result.get() == 7)
    #expect(upstream.requests == [.demand(.max(1)), .cancel])
  }

  @Test func block_failureFirst_returnsFailure() {
    let result = Fail<Int, SnailOpsError>(error: .boom).block()
    #expect(throws: SnailOpsError.boom) { try result.get() }
  }

  @Test func block_finishFirst_returnsNil() throws {
    let result = Empty<Int, SnailOpsError>().block()
    #expect(try result.get() == nil)
  }

  @Test func block_timeout_returnsNilAndCancels() throws {
    let result = upstream.block(timeout: .milliseconds(20))
    #expect(try result.get() == nil)
    #expect(upstream.requests == [.demand(.max(1)), .cancel])
  }

  /// Snail's spellings: the counts as `UInt`, the timeout in seconds.
  @Test func snailSpellings_uintCountsAndSecondsTimeout() throws {
    let skipped = RecordingSubscriber<Int, SnailOpsError>()
    let taken = RecordingSubscriber<Int, SnailOpsError>()
    let first: UInt = 2
    upstream.skip(first: first).subscribe(skipped)
    upstream.take(first: first).subscribe(taken)
    for value in 1...4 { upstream.send(value) }
    #expect(skipped.values == [3, 4])
    #expect(taken.values == [1, 2])
    #expect(taken.completion == .finished)

    #expect(try upstreamSendingOnSubscribe([7]).block(timeout: 1).get() == 7)
    let waiting = TestPublisher<Int, SnailOpsError>()
    #expect(try waiting.block(timeout: 0.02).get() == nil)
    #expect(waiting.requests == [.demand(.max(1)), .cancel])
  }

  private func upstreamSendingOnSubscribe(_ values: [Int]) -> AnyPublisher<Int, SnailOpsError> {
    Publishers.Sequence<[Int], SnailOpsError>(sequence: values).eraseToAnyPublisher()
  }
}
