import FutureKit
import StreamCore
import StreamPropagate
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct StreamUpdateOnlyTests {
  let publisher = StreamPublisher<Int, StreamTestError>()

  @Test func didUpdate_firesOnValuesOnlyByDefault() async {
    let updates = StreamLog<Void>()
    let stream = publisher.subscriber().didUpdate().subscribe { updates.append(()) }
    updates.waits(on: stream)
    publisher.publish(1)
    publisher.publish(StreamTestError(1))
    publisher.publish(2)
    #expect(await updates.count == 2)
    _ = stream
  }

  @Test func didUpdateIncludingErrors_firesOnErrorsToo() async {
    let updates = StreamLog<Void>()
    let stream = publisher.subscriber().didUpdate(includeErrors: true)
      .subscribe { updates.append(()) }
    updates.waits(on: stream)
    publisher.publish(1)
    publisher.publish(StreamTestError(1))
    #expect(await updates.count == 2)
    _ = stream
  }

  @Test func onCancelled_runsOnCancellationAndAtOnceWhenLate() async {
    let cancellations = StreamLog<Void>()
    let stream = publisher.subscriber().didUpdate().onCancelled { cancellations.append(()) }
    cancellations.waits(on: stream)
    publisher.cancelAll()
    #expect(stream.isCancelled)
    stream.onCancelled { cancellations.append(()) }
    #expect(await cancellations.count == 2)
  }

  @Test func subscribeWithAQueue_runsOnThatQueue() async {
    let marker = StreamQueueMarker(label: "updates")
    let onQueue = StreamLog<Bool>()
    let stream = publisher.subscriber().didUpdate()
      .subscribe(onQueue: marker.queue) { onQueue.append(marker.isCurrent) }
    publisher.publish(1)
    marker.flush()
    #expect(await onQueue.elements == [true])
    _ = stream
  }

  @Test func fullSubscriber_givesVoidValuesAnErrorType() async {
    let full: StreamSubscriber<Void, StreamTestError> = publisher.subscriber().didUpdate()
      .fullSubscriber()
    let count = StreamLog<Void>()
    full.onNewData { count.append(()) }
    count.waits(on: full)
    publisher.publish(1)
    #expect(await count.count == 1)
  }

  @Test func publisherView_sendsOneVoidPerUpdateAndFinishes() async {
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
    #expect(await values.count == 2)
    #expect(await completions.count == 1)
    _ = token
  }

  @Test func description_namesTheType() {
    let stream = publisher.subscriber().didUpdate()
    #expect(stream.description == "UpdateOnlyStreamSubscriber")
    stream.cancel()
    #expect(stream.description == "UpdateOnlyStreamSubscriber (cancelled)")
  }
}
