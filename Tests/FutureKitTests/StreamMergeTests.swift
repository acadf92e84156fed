import Dispatch
import FutureKit
import StreamPropagate
import Testing

@Suite(.timeLimit(.minutes(5))) struct StreamMergeTests {
  let left = StreamPublisher<Int, StreamTestError>()
  let right = StreamPublisher<Int, StreamTestError>()

  @Test func merge_passesValuesAndErrorsFromEverySourceInArrivalOrder() async {
    let merged = StreamSubscriber.merge([left.subscriber(), right.subscriber()])
    let log = merged.record()
    left.publish(1)
    right.publish(2)
    right.publish(StreamTestError(1))
    left.publish(3)
    #expect(await log.elements == [.data(1), .data(2), .error(StreamTestError(1)), .data(3)])
  }

  @Test func merge_isCancelledOnlyWhenEverySourceIsCancelled() async {
    let merged = StreamSubscriber.merge(left.subscriber(), right.subscriber())
    let log = merged.record()
    left.cancelAll()
    #expect(!merged.isCancelled)
    right.publish(1)
    right.cancelAll()
    #expect(merged.isCancelled)
    #expect(await log.elements == [.data(1), .cancelled])
  }

  @Test func mergeOfAlreadyCancelledSources_isCancelledAtOnce() {
    let first = left.subscriber()
    let second = right.subscriber()
    first.cancel()
    second.cancel()
    #expect(first.mergeWith(second).isCancelled)
  }

  @Test func mergeOfNothing_isCancelledAtOnce() {
    let merged = StreamSubscriber<Int, StreamTestError>.merge([])
    #expect(merged.isCancelled)
  }

  @Test func mergeWith_variadicAndArrayFormsMergeTheReceiverFirst() async {
    let third = StreamPublisher<Int, StreamTestError>()
    let variadic = left.subscriber().mergeWith(right.subscriber(), third.subscriber())
    let array = left.subscriber().mergeWith([right.subscriber(), third.subscriber()])
    let variadicLog = variadic.record()
    let arrayLog = array.record()
    left.publish(1)
    right.publish(2)
    third.publish(3)
    #expect(await variadicLog.elements == [.data(1), .data(2), .data(3)])
    #expect(await arrayLog.elements == [.data(1), .data(2), .data(3)])
  }

  @Test func merge_keepsItsSourcesAlive() async {
    weak var weakSource: StreamSubscriber<Int, StreamTestError>?
    let merged: StreamSubscriber<Int, StreamTestError>
    do {
      let source = left.subscriber()
      weakSource = source
      merged = StreamSubscriber.merge([source])
    }
    #expect(weakSource != nil)
    let log = merged.record()
    left.publish(1)
    #expect(await log.elements == [.data(1)])
  }

  @Test func mergeOfAStatefulSource_isStateful() async {
    let stateful = StatefulStreamPublisher<Int, StreamTestError>()
    stateful.publish(7)
    let merged = StreamSubscriber.merge(stateful.subscriber(), left.subscriber())
    #expect(await merged.record().elements == [.data(7)])
  }

  @Test func sourcesPublishingOnSeveralThreads_nothingIsLostOrDuplicated() async {
    let publishers = (0..<4).map { _ in StreamPublisher<Int, StreamTestError>() }
    let merged = StreamSubscriber.merge(publishers.map { $0.subscriber() })
    let values = StreamLog<Int>()
    merged.onNewData { values.append($0) }
    values.waits(on: merged)
    DispatchQueue.concurrentPerform(iterations: 4) { index in
      for value in 0..<500 { publishers[index].publish(index * 1_000 + value) }
    }
    let received = await values.elements
    #expect(received.count == 2_000)
    #expect(Set(received).count == 2_000)
    for index in 0..<4 {
      let fromSource = received.filter { $0 / 1_000 == index }
      #expect(fromSource == fromSource.sorted())
    }
  }
}
