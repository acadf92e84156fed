import Dispatch
import FutureKit
import StreamPropagate
import Testing

@Suite(.timeLimit(.minutes(5))) struct StreamCombineTests {
  let ints = StreamPublisher<Int, StreamTestError>()
  let strings = StreamPublisher<String, StreamTestError>()

  /// Records the tuples of a two-stream combination as strings, which are `Equatable`.
  func record(_ combined: StreamSubscriber<(Int, String), StreamTestError>) -> StreamLog<String> {
    let log = StreamLog<String>()
    combined.subscribe { state in
      switch state {
      case .data(let (int, string)): log.append("\(int) \(string)")
      case .error(let error): log.append("error \(error.code)")
      case .cancelled: log.append("cancelled")
      }
    }
    return log.waits(on: combined)
  }

  @Test func combine_waitsForEverySourceThenSendsTheLatestTuple() async {
    let combined = StreamSubscriber.combine(ints.subscriber(), strings.subscriber())
    let log = record(combined)
    ints.publish(5)
    #expect(await log.elements.isEmpty)
    strings.publish("boop")
    strings.publish("BEEP")
    ints.publish(23)
    #expect(await log.elements == ["5 boop", "5 BEEP", "23 BEEP"])
  }

  @Test func combine_errorsPassThroughWithoutClearingTheStoredValues() async {
    let combined = ints.subscriber().combineWith(strings.subscriber())
    let log = record(combined)
    ints.publish(1)
    ints.publish(StreamTestError(1))
    strings.publish("a")
    strings.publish(StreamTestError(2))
    ints.publish(2)
    #expect(await log.elements == ["error 1", "1 a", "error 2", "2 a"])
  }

  @Test func combine_isCancelledWhenAnySourceIsCancelled() async {
    let combined = StreamSubscriber.combine(ints.subscriber(), strings.subscriber())
    let log = record(combined)
    ints.publish(1)
    strings.publish("a")
    strings.cancelAll()
    ints.publish(2)
    #expect(combined.isCancelled)
    #expect(await log.elements == ["1 a", "cancelled"])
  }

  @Test func combine_acceptsMoreThanSixSources() async {
    let publishers = (0..<7).map { _ in StreamPublisher<Int, StreamTestError>() }
    let s = publishers.map { $0.subscriber() }
    let combined = StreamSubscriber.combine(s[0], s[1], s[2], s[3], s[4], s[5], s[6])
    let sums = StreamLog<Int>()
    combined.onNewData { a, b, c, d, e, f, g in sums.append(a + b + c + d + e + f + g) }
    sums.waits(on: combined)
    for (index, publisher) in publishers.enumerated() { publisher.publish(index) }
    publishers[6].publish(100)
    #expect(await sums.elements == [21, 115])
  }

  @Test func combineWith_putsTheReceiverFirstForAnyNumberOfOthers() async {
    let doubles = StreamPublisher<Double, StreamTestError>()
    let combined = ints.subscriber().combineWith(strings.subscriber(), doubles.subscriber())
    let log = StreamLog<String>()
    combined.onNewData { int, string, double in log.append("\(int) \(string) \(double)") }
    log.waits(on: combined)
    ints.publish(1)
    strings.publish("a")
    doubles.publish(0.5)
    #expect(await log.elements == ["1 a 0.5"])
  }

  @Test func combineWithAStatefulSource_replaysTheLatestTuple() async {
    let stateful = StatefulStreamPublisher<String, StreamTestError>()
    stateful.publish("a")
    let combined = ints.subscriber().combineWith(stateful.subscriber())
    ints.publish(1)
    #expect(await record(combined).elements == ["1 a"])
  }

  @Test func sourcesPublishingOnSeveralThreads_theLastTupleHoldsTheLatestOfEach() async {
    let combined = ints.subscriber().combineWith(strings.subscriber())
    let tuples = StreamLog<String>()
    let last = StreamLog<(Int, String)>()
    combined.onNewData { tuple in
      tuples.append("\(tuple)")
      last.append(tuple)
    }
    tuples.waits(on: combined)
    last.waits(on: combined)
    ints.publish(-1)
    strings.publish("start")
    DispatchQueue.concurrentPerform(iterations: 2) { index in
      for value in 0..<1_000 {
        if index == 0 { ints.publish(value) } else { strings.publish("\(value)") }
      }
    }
    await #expect(tuples.count == 2_001)
    await #expect(Set(tuples.elements).count == 2_001)
    let final = await last.elements.last
    #expect(final?.0 == 999)
    #expect(final?.1 == "999")
  }
}
