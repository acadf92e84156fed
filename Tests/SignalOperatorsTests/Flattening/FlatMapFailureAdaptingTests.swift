import SignalOperators
import StreamCore
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct FlatMapFailureAdaptingTests {
  struct Boom: Error, Equatable {}

  @Test func neverUpstream_failingChildren_takesTheChildrensFailure() {
    let flattened = Just(1).flatMap { _ in Fail<Int, Boom>(error: Boom()) }
    #expect(
      type(of: flattened)
        == Publishers.FlatMap<Fail<Int, Boom>, Publishers.SetFailureType<Just<Int>, Boom>>.self
    )
    let recorder = RecordingSubscriber<Int, Boom>()
    flattened.subscribe(recorder)
    #expect(recorder.completion == .failure(Boom()))
  }

  @Test func failingUpstream_neverChildren_givesChildrenTheFailureType() {
    let upstream = TestPublisher<Int, Boom>()
    let flattened = upstream.flatMap { Just($0 * 10) }
    #expect(
      type(of: flattened)
        == Publishers.FlatMap<Publishers.SetFailureType<Just<Int>, Boom>, TestPublisher<Int, Boom>>
        .self
    )
    let recorder = RecordingSubscriber<Int, Boom>()
    flattened.subscribe(recorder)
    upstream.send(1)
    upstream.send(2)
    upstream.send(completion: .failure(Boom()))
    #expect(recorder.values == [10, 20])
    #expect(recorder.completion == .failure(Boom()))
  }

  @Test func neitherFails_usesThePlainForm() {
    let flattened = (0..<3).publisher.flatMap { Just($0) }
    #expect(
      type(of: flattened)
        == Publishers.FlatMap<Just<Int>, Publishers.Sequence<Range<Int>, Never>>
        .self
    )
    let recorder = RecordingSubscriber<Int, Never>()
    flattened.subscribe(recorder)
    #expect(recorder.values == [0, 1, 2])
    #expect(recorder.completion == .finished)
  }

  @Test func switchToLatest_neverUpstream_failingInner_failsWithTheInnersFailure() {
    let upstream = PassthroughSubject<PassthroughSubject<Int, Boom>, Never>()
    let switched = upstream.switchToLatest()
    #expect(
      type(of: switched)
        == Publishers.SwitchToLatest<
          PassthroughSubject<Int, Boom>,
          Publishers.SetFailureType<PassthroughSubject<PassthroughSubject<Int, Boom>, Never>, Boom>
        >.self
    )
    let recorder = RecordingSubscriber<Int, Boom>()
    switched.subscribe(recorder)
    let inner = PassthroughSubject<Int, Boom>()
    upstream.send(inner)
    inner.send(1)
    inner.send(completion: .failure(Boom()))
    #expect(recorder.values == [1])
    #expect(recorder.completion == .failure(Boom()))
  }

  @Test func switchToLatest_failingUpstream_neverInner_givesInnersTheFailureType() {
    let upstream = PassthroughSubject<Just<Int>, Boom>()
    let switched = upstream.switchToLatest()
    let recorder = RecordingSubscriber<Int, Boom>()
    switched.subscribe(recorder)
    upstream.send(Just(1))
    upstream.send(Just(2))
    upstream.send(completion: .failure(Boom()))
    #expect(recorder.values == [1, 2])
    #expect(recorder.completion == .failure(Boom()))
  }

  @Test func switchToLatest_neitherFails_usesThePlainForm() {
    let upstream = PassthroughSubject<Just<Int>, Never>()
    let switched = upstream.switchToLatest()
    #expect(
      type(of: switched)
        == Publishers.SwitchToLatest<Just<Int>, PassthroughSubject<Just<Int>, Never>>.self
    )
    let recorder = RecordingSubscriber<Int, Never>()
    switched.subscribe(recorder)
    upstream.send(Just(3))
    upstream.send(completion: .finished)
    #expect(recorder.values == [3])
    #expect(recorder.completion == .finished)
  }

  @Test func adaptedFlatMap_conforms() {
    PublisherConformance(
      elements: 3,
      makePublisher: { [1, 2, 3].publisher.flatMap { Just($0).setFailureType(to: Boom.self) } }
    )
    .run()
    .expectAllPassed(skipping: ["SC-1.05", "SC-2.04"])
  }
}
