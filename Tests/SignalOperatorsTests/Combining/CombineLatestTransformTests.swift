import SignalOperators
import StreamCore
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct CombineLatestTransformTests {
  struct Boom: Error, Equatable {}

  let a = TestPublisher<Int, Boom>()
  let b = TestPublisher<Int, Boom>()
  let c = TestPublisher<Int, Boom>()
  let d = TestPublisher<Int, Boom>()

  @Test func twoUpstreams_publishTheTransformedLatestValues() {
    let recorder = RecordingSubscriber<Int, Boom>()
    a.combineLatest(b) { $0 * 10 + $1 }.subscribe(recorder)
    a.send(1)
    b.send(2)
    a.send(3)
    #expect(recorder.values == [12, 32])
  }

  @Test func threeUpstreams_publishTheTransformedLatestValues() {
    let recorder = RecordingSubscriber<Int, Boom>()
    a.combineLatest(b, c) { $0 * 100 + $1 * 10 + $2 }.subscribe(recorder)
    a.send(1)
    b.send(2)
    c.send(3)
    b.send(4)
    #expect(recorder.values == [123, 143])
  }

  @Test func fourUpstreams_publishTheTransformedLatestValues() {
    let recorder = RecordingSubscriber<Int, Boom>()
    a.combineLatest(b, c, d) { $0 * 1000 + $1 * 100 + $2 * 10 + $3 }.subscribe(recorder)
    a.send(1)
    b.send(2)
    c.send(3)
    d.send(4)
    d.send(5)
    #expect(recorder.values == [1234, 1235])
    a.send(completion: .failure(Boom()))
    #expect(recorder.completion == .failure(Boom()))
  }

  @Test func transform_returnsMapOfCombineLatest() {
    let publisher: Publishers.Map<Publishers.CombineLatest<Just<Int>, Just<Int>>, Int> =
      Just(1).combineLatest(Just(2)) { $0 + $1 }
    let recorder = RecordingSubscriber<Int, Never>()
    publisher.subscribe(recorder)
    #expect(recorder.values == [3])
    #expect(recorder.completion == .finished)
  }
}
