import Dispatch
import SignalOperators
import StreamCore
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct MergeManyTests {
  struct Boom: Error, Equatable {}

  @Test func noUpstreams_finishesAtOnceWithoutDemand() {
    let recorder = RecordingSubscriber<Int, Boom>(initialDemand: nil)
    Publishers.MergeMany<TestPublisher<Int, Boom>>([]).subscribe(recorder)
    #expect(recorder.events == [.subscription, .completion(.finished)])
    #expect(recorder.subscriptionDescription == "Merge")
  }

  @Test func noUpstreams_requestFromReceiveSubscription_completionAfterIt() {
    let probe = MergeProbe<Int, Never>(initialDemand: .max(1))
    Publishers.MergeMany<Just<Int>>().subscribe(probe)
    #expect(probe.completions == [.finished])
    #expect(probe.overlaps == 0)
  }

  @Test func oneUpstream_passesValuesAndCompletion() {
    let upstream = TestPublisher<Int, Boom>()
    let recorder = RecordingSubscriber<Int, Boom>()
    Publishers.MergeMany(upstream).subscribe(recorder)
    upstream.send(1)
    upstream.send(2)
    upstream.send(completion: .failure(Boom()))
    #expect(
      recorder.events == [.subscription, .value(1), .value(2), .completion(.failure(Boom()))]
    )
    #expect(upstream.requests == [.demand(.unlimited)])
  }

  @Test func manyUpstreams_allMergedFinishAfterTheLast() {
    let ups = (0..<50).map { _ in TestPublisher<Int, Boom>() }
    let recorder = RecordingSubscriber<Int, Boom>()
    Publishers.MergeMany(ups).subscribe(recorder)
    for (index, upstream) in ups.enumerated() {
      upstream.send(index)
      upstream.send(completion: .finished)
    }
    #expect(recorder.values == Array(0..<50))
    #expect(recorder.completion == .finished)
    #expect(ups.allSatisfy { $0.requests == [.demand(.unlimited)] })
  }

  @Test func variadicSequenceAndMergeWith_sameUpstreamsInOrder() {
    let variadic = Publishers.MergeMany(Just(1), Just(2))
    let fromSequence = Publishers.MergeMany([Just(1), Just(2)])
    #expect(variadic == fromSequence)
    #expect(variadic.publishers == [Just(1), Just(2)])
    let extended = variadic.merge(with: Just(3))
    #expect(extended.publishers == [Just(1), Just(2), Just(3)])
    let recorder = RecordingSubscriber<Int, Never>()
    extended.subscribe(recorder)
    #expect(
      recorder.events == [
        .subscription, .value(1), .value(2), .value(3), .completion(.finished),
      ]
    )
  }

  @Test func limitedDemand_eachRequestForwardedWholeToEveryUpstream() {
    let ups = (0..<3).map { _ in TestPublisher<Int, Boom>() }
    let recorder = RecordingSubscriber<Int, Boom>(initialDemand: nil)
    Publishers.MergeMany(ups).subscribe(recorder)
    #expect(ups.allSatisfy { $0.requests.isEmpty })
    recorder.request(.max(1))
    #expect(ups.allSatisfy { $0.requests == [.demand(.max(1))] })
    ups[2].send(3)
    ups[0].send(1)
    #expect(recorder.values == [3])
    recorder.request(.max(5))
    #expect(recorder.values == [3, 1])
    #expect(ups.allSatisfy { $0.requests == [.demand(.max(1)), .demand(.max(5))] })
    ups[1].send(2)
    ups[2].send(4)
    ups[2].send(5)
    #expect(recorder.values == [3, 1, 2, 4, 5])
    #expect(ups.allSatisfy { $0.violations.isEmpty })
    #expect(recorder.violations.isEmpty)
  }

  @Test func failure_cancelsTheOthersAndSkipsUnsubscribed() {
    let first = TestPublisher<Int, Boom>()
    let second = TestPublisher<Int, Boom>()
    let recorder = RecordingSubscriber<Int, Boom>()
    Publishers.MergeMany(first.eraseToAnyPublisher(), second.eraseToAnyPublisher())
      .subscribe(recorder)
    first.send(completion: .failure(Boom()))
    second.send(1)
    #expect(recorder.events == [.subscription, .completion(.failure(Boom()))])
    #expect(second.requests == [.demand(.unlimited), .cancel])
  }

  @Test func cancel_cancelsEveryUpstreamAndReleases() {
    let ups = (0..<4).map { _ in TestPublisher<Int, Boom>() }
    weak var weakInner: AnyObject?
    do {
      let recorder = RecordingSubscriber<Int, Boom>()
      Publishers.MergeMany(ups).subscribe(recorder)
      weakInner = recorder.subscription.map { $0 as AnyObject }
      recorder.cancel()
    }
    #expect(weakInner == nil)
    #expect(ups.allSatisfy { $0.requests == [.demand(.unlimited), .cancel] })
  }

  @Test func concurrentSendsIntoManyUpstreams_nothingLostOrDuplicated() {
    let subjects = (0..<6).map { _ in PassthroughSubject<Int, Never>() }
    let probe = MergeProbe<Int, Never>(initialDemand: .unlimited)
    Publishers.MergeMany(subjects).subscribe(probe)
    DispatchQueue.concurrentPerform(iterations: 6) { thread in
      for value in 0..<10_000 { subjects[thread].send(thread * 10_000 + value) }
    }
    let values = probe.values
    #expect(values.count == 60_000)
    #expect(Set(values) == Set(0..<60_000))
    #expect(probe.overlaps == 0)
  }

  @Test func conformance_passes() {
    let values: @Sendable ([Int]) -> AnyPublisher<Int, Boom> = {
      Publishers.Sequence(sequence: $0).eraseToAnyPublisher()
    }
    PublisherConformance(
      elements: 6,
      makePublisher: { Publishers.MergeMany(values([1, 2]), values([3, 4]), values([5, 6])) },
      makeFailingPublisher: {
        Publishers.MergeMany(values([1]), Fail(error: Boom()).eraseToAnyPublisher())
      }
    )
    .run()
    .expectAllPassed(skipping: ["SC-1.05"])
  }

  @Test func conformance_empty_passes() {
    PublisherConformance(
      elements: 0,
      makePublisher: { Publishers.MergeMany<Just<Int>>([]) }
    )
    .run()
    .expectAllPassed(skipping: ["SC-1.05", "SC-2.04", "SC-3.01", "SC-3.02"])
  }
}
