import FutureKit
import StreamPropagate
import Testing

@Suite(.timeLimit(.minutes(5))) struct StreamScanValuesTests {
  let publisher = StreamPublisher<Int, StreamTestError>()

  @Test func scanValues_emitsTheLatestWindowOnceFull() async {
    let windows = publisher.subscriber().scanValues(3)
    let log = windows.record()
    for value in 1...5 { publisher.publish(value) }
    #expect(await log.elements == [.data([1, 2, 3]), .data([2, 3, 4]), .data([3, 4, 5])])
  }

  @Test func scanValues_errorsPassThroughWithoutClearingTheWindow() async {
    let windows = publisher.subscriber().scanValues(2)
    let log = windows.record()
    publisher.publish(1)
    publisher.publish(StreamTestError(1))
    publisher.publish(2)
    #expect(await log.elements == [.error(StreamTestError(1)), .data([1, 2])])
  }

  @Test func scanValuesOfOne_emitsEachValueAlone() async {
    let windows = publisher.subscriber().scanValues(1)
    let log = windows.record()
    publisher.publish(1)
    publisher.publish(2)
    #expect(await log.elements == [.data([1]), .data([2])])
  }

  @Test func scanValuesBelowOne_neverEmitsValuesButPassesErrors() async {
    let windows = publisher.subscriber().scanValues(0)
    let log = windows.record()
    publisher.publish(1)
    publisher.publish(StreamTestError(1))
    publisher.cancelAll()
    #expect(await log.elements == [.error(StreamTestError(1)), .cancelled])
  }
}
