import FutureKit
import StreamCore
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct StreamUpdateOnlyTests {
  let publisher = StreamPublisher<Int, StreamTestError>()

  @Test func didUpdate_firesOnValuesOnlyByDefault() {
    let updates = StreamLog<Void>()
    let stream = publisher.subscriber().didUpdate().subscribe { updates.append(()) }
    updates.waits(on: stream)
    publisher.publish(1)
    publisher.publish(StreamTestError(1))
    publisher.publish(2)
    #expect(updates.count == 2)
    _ = stream
  }

  @Test func didUpdateIncludingErrors_firesOnErrorsToo() {
    let updates = StreamLog<Void>()
    let stream = publisher.subscriber().didUpdate(includeErrors: true)
      .subscribe { updates.append(()) }
    updates.waits(on: stream)
    publisher.publish(1)
    publisher.publish(StreamTestError(1))
    #expect(updates.count == 2)
    _ = stream
  }

  @Test func onCancelled_runsOnCancellationAndAtOnceWhenLate() {
    let cancellations = StreamLog<Void>()
    let stream = publisher.subscriber().didUpdate().onCancelled { cancellations.append(()) }
    cancellations.waits(on: stream)
    publisher.cancelAll()
    #expect(stream.isCancelled)
    stream.onCancelled { cancellations.append(()) }
    #expect(cancellations.count == 2)
  }

  @Test func subscribeWithAQueue_runsOnThatQueue() {
    let marker = StreamQueueMarker(label: "updates")
    let onQueue = StreamLog<Bool>()
    let stream = publisher.subscriber().didUpdate()
      .subscribe(onQueue: marker.queue) { onQueue.append(marker.isCurrent) }
    publisher.publish(1)
    marker.flush()
    #expect(onQueue.elements == [true])
    _ = stream
  }

  @Test func fullSubscriber_givesVoidValuesAnErrorType() {
    let full: StreamSubscriber<Void, StreamTestError> = publisher.subscriber().didUpdate()
      .fullSubscriber()
    let count = StreamLog<Void>()
    full.onNewData { count.append(()) }
    count.waits(on: full)
    publisher.publish(1)
    #expect(count.count == 1)
  }

  @Test func publisherView_sendsOneVoidPerUpdateAndFinishes() {
    let stream = publisher.subscriber().didUpdate()
    let values = StreamLog<Void>()
    let completions = StreamLog<Subscribers.Completion<Never>>()
    let token = stream.sink(
      receiveCompletion: { completions.append($0) },
      receiveValue: { values.append(()) }
    )
    publisher.publish(1)
    publisher.publish(2)
    publisher.cancelAll()
    #expect(values.count == 2)
    #expect(completions.count == 1)
    _ = token
  }

  @Test func description_namesTheType() {
    let stream = publisher.subscriber().didUpdate()
    #expect(stream.description == "UpdateOnlyStreamSubscriber")
    stream.cancel()
    #expect(stream.description == "UpdateOnlyStreamSubscriber (cancelled)")
  }
}
