import SignalOperators
import StreamCore
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct ZipTransformTests {
  struct Boom: Error, Equatable {}

  let a = TestPublisher<Int, Boom>()
  let b = TestPublisher<Int, Boom>()
  let c = TestPublisher<Int, Boom>()
  let d = TestPublisher<Int, Boom>()

  @Test func twoUpstreams_publishTheTransformedPairedValues() {
    let recorder = RecordingSubscriber<Int, Boom>()
    a.zip(b) { $0 * 10 + $1 }.subscribe(recorder)
    a.send(1)
    a.send(3)
    b.send(2)
    b.send(4)
    #expect(recorder.values == [12, 34])
  }

  @Test func threeUpstreams_publishTheTransformedPairedValues() {
    let recorder = RecordingSubscriber<Int, Boom>()
    a.zip(b, c) { $0 * 100 + $1 * 10 + $2 }.subscribe(recorder)
    a.send(1)
    b.send(2)
    c.send(3)
    b.send(4)
    #expect(recorder.values == [123])
  }

  @Test func fourUpstreams_publishTheTransformedPairedValues() {
    let recorder = RecordingSubscriber<Int, Boom>()
    a.zip(b, c, d) { $0 * 1000 + $1 * 100 + $2 * 10 + $3 }.subscribe(recorder)
    a.send(1)
    b.send(2)
    c.send(3)
    d.send(4)
    d.send(5)
    #expect(recorder.values == [1234])
    a.send(completion: .failure(Boom()))
    #expect(recorder.completion == .failure(Boom()))
  }

  @Test func transform_returnsMapOfZip() {
    let publisher: Publishers.Map<Publishers.Zip<Just<Int>, Just<Int>>, Int> =
      Just(1).zip(Just(2)) { $0 + $1 }
    let recorder = RecordingSubscriber<Int, Never>()
    publisher.subscribe(recorder)
    #expect(recorder.values == [3])
    #expect(recorder.completion == .finished)
  }
}
