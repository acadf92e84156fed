import FutureKit
import StreamPropagate
import Testing

@Suite(.timeLimit(.minutes(5))) struct StreamDistinctTests {
  let publisher = StreamPublisher<Int, StreamTestError>()

  @Test func distinctValues_skipsConsecutiveEqualValues() async {
    let distinct = publisher.subscriber().distinctValues()
    let log = distinct.record()
    for value in [1, 1, 2, 2, 2, 1] { publisher.publish(value) }
    #expect(await log.elements == [.data(1), .data(2), .data(1)])
  }

  @Test func distinctValues_anErrorResetsTheComparison() async {
    let distinct = publisher.subscriber().distinctValues()
    let log = distinct.record()
    publisher.publish(1)
    publisher.publish(StreamTestError(1))
    publisher.publish(StreamTestError(1))
    publisher.publish(1)
    #expect(
      await log.elements == [
        .data(1), .error(StreamTestError(1)), .error(StreamTestError(1)), .data(1),
      ]
    )
  }

  @Test func distinctValues_isStatefulAndReplaysTheLatestState() async {
    let distinct = publisher.subscriber().distinctValues()
    publisher.publish(1)
    publisher.publish(1)
    #expect(await distinct.record().elements == [.data(1)])
  }

  @Test func distinctValues_cancellationPassesOnce() async {
    let distinct = publisher.subscriber().distinctValues()
    let log = distinct.record()
    publisher.cancelAll()
    publisher.cancelAll()
    #expect(await log.elements == [.cancelled])
  }

  @Test func distinctStates_skipsConsecutiveEqualValuesAndErrors() async {
    let distinct = publisher.subscriber().distinctStates()
    let log = distinct.record()
    publisher.publish(1)
    publisher.publish(1)
    publisher.publish(StreamTestError(1))
    publisher.publish(StreamTestError(1))
    publisher.publish(StreamTestError(2))
    publisher.publish(1)
    #expect(
      await log.elements == [
        .data(1), .error(StreamTestError(1)), .error(StreamTestError(2)), .data(1),
      ]
    )
  }

  @Test func distinctStates_isStateful() async {
    let distinct = publisher.subscriber().distinctStates()
    publisher.publish(StreamTestError(3))
    #expect(await distinct.record().elements == [.error(StreamTestError(3))])
  }
}
