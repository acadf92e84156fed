import Dispatch
import FutureKit
import StreamCore
import StreamPropagate
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct StreamValueOnlyTests {
  let publisher = StreamPublisher<Int, StreamTestError>()

  @Test func valueOnly_dropsErrors() async {
    let values = StreamLog<Int>()
    let stream = publisher.subscriber().valueOnly().onNext { values.append($0) }
    values.waits(on: stream)
    publisher.publish(1)
    publisher.publish(StreamTestError(1))
    publisher.publish(2)
    #expect(await values.elements == [1, 2])
    _ = stream
  }

  /// Propagate's `map(mapping:)` and `compactMap(mapping:)` labels.
  @Test func mappingLabels_mapAndCompactMap() async {
    let doubled = StreamLog<Int>()
    let evens = StreamLog<Int>()
    let values = publisher.subscriber().valueOnly()
    let first = values.map(mapping: { $0 * 2 }).onNext { doubled.append($0) }
    let second = values.compactMap(mapping: { $0.isMultiple(of: 2) ? $0 : nil })
      .onNext { evens.append($0) }
    doubled.waits(on: first)
    evens.waits(on: second)
    for value in 1...4 { publisher.publish(value) }
    #expect(await doubled.elements == [2, 4, 6, 8])
    #expect(await evens.elements == [2, 4])
    _ = (first, second)
  }

  @Test func onCancelled_runsOnCancellationAndAtOnceWhenLate() async {
    let cancellations = StreamLog<Void>()
    let stream = publisher.subscriber().valueOnly().onCancelled { cancellations.append(()) }
    cancellations.waits(on: stream)
    publisher.cancelAll()
    #expect(await cancellations.count == 1)
    #expect(stream.isCancelled)
    stream.onCancelled { cancellations.append(()) }
    #expect(await cancellations.count == 2)
  }

  @Test func lateOnCancelledWithItsOwnQueue_fromThatQueue_doesNotDeadlock() async {
    let marker = StreamQueueMarker(label: "value-only")
    let stream = publisher.subscriber().valueOnly()
    stream.cancel()
    let ran = StreamLog<Bool>()
    marker.queue.sync {
      _ = stream.onCancelled(onQueue: marker.queue) { ran.append(marker.isCurrent) }
    }
    marker.flush()
    #expect(await ran.elements == [true])
  }

  @Test func map_compactMap_filterNil_distinctValues_transformValues() async {
    let optionals = StreamPublisher<Int?, StreamTestError>()
    let values = StreamLog<String>()
    let stream = optionals.subscriber().valueOnly()
      .filterNil()
      .compactMap { $0 > 0 ? $0 : nil }
      .distinctValues()
      .map { "#\($0)" }
      .onNext { values.append($0) }
    values.waits(on: stream)
    for value in [nil, 1, 1, -1, 2, nil, 2, 3] as [Int?] { optionals.publish(value) }
    #expect(await values.elements == ["#1", "#2", "#3"])
    _ = stream
  }

  @Test func combine_waitsForEachThenSendsTuplesAndIsCancelledByAny() async {
    let strings = StreamPublisher<String, StreamTestError>()
    let combined = ValueOnlyStreamSubscriber.combine(
      publisher.subscriber().valueOnly(),
      strings.subscriber().valueOnly()
    )
    let log = StreamLog<String>()
    combined.onNext { log.append("\($0) \($1)") }
    log.waits(on: combined)
    publisher.publish(1)
    strings.publish("a")
    publisher.publish(2)
    strings.cancelAll()
    #expect(await log.elements == ["1 a", "2 a"])
    #expect(combined.isCancelled)
  }

  @Test func combineWith_putsTheReceiverFirst() async {
    let strings = StreamPublisher<String, StreamTestError>()
    let combined = publisher.subscriber().valueOnly()
      .combineWith(strings.subscriber().valueOnly(), publisher.subscriber().valueOnly())
    let log = StreamLog<String>()
    combined.onNext { log.append("\($0) \($1) \($2)") }
    log.waits(on: combined)
    strings.publish("a")
    publisher.publish(1)
    #expect(await log.elements == ["1 a 1"])
  }

  @Test func fullSubscriber_givesTheValuesAnErrorType() async {
    let full: StreamSubscriber<Int, StreamOtherError> = publisher.subscriber().valueOnly()
      .fullSubscriber()
    let log = full.record()
    publisher.publish(1)
    publisher.publish(StreamTestError(1))
    publisher.cancelAll()
    #expect(await log.elements == [.data(1), .cancelled])
  }

  @Test func droppedValueOnlyStream_isReleasedAndStopsReceiving() async {
    let values = StreamLog<Int>()
    weak var weakStream: ValueOnlyStreamSubscriber<Int>?
    do {
      let stream = publisher.subscriber().valueOnly().onNext { values.append($0) }
      values.waits(on: stream)
      weakStream = stream
      publisher.publish(1)
    }
    publisher.publish(2)
    #expect(weakStream == nil)
    #expect(await values.elements == [1])
  }

  @Test func publisherView_sendsValuesAndFinishesOnCancellation() {
    let stream = publisher.subscriber().valueOnly()
    let recorder = RecordingSubscriber<Int, Never>()
    stream.subscribe(recorder)
    publisher.publish(1)
    publisher.publish(StreamTestError(1))
    publisher.cancelAll()
    #expect(recorder.events == [.subscription, .value(1), .completion(.finished)])
    #expect(recorder.violations.isEmpty)
  }

  @Test func description_namesTheType() {
    let stream = publisher.subscriber().valueOnly()
    #expect(stream.description == "ValueOnlyStreamSubscriber<Int>")
    stream.cancel()
    #expect(stream.description == "ValueOnlyStreamSubscriber<Int> (cancelled)")
  }
}
