import SignalOperators
import StreamCombineExt
import StreamCore
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct PartitionTests {
  let upstream = TestPublisher<Int, TestError>()

  @Test func values_goToTheSideThePredicatePicks() {
    let (even, odd) = upstream.partition { $0.isMultiple(of: 2) }
    let evens = RecordingSubscriber<Int, TestError>()
    let odds = RecordingSubscriber<Int, TestError>()
    even.subscribe(evens)
    odd.subscribe(odds)
    for value in 1...5 { upstream.send(value) }
    upstream.send(completion: .failure(TestError()))
    #expect(
      evens.events == [.subscription, .value(2), .value(4), .completion(.failure(TestError()))]
    )
    #expect(
      odds.events == [
        .subscription, .value(1), .value(3), .value(5), .completion(.failure(TestError())),
      ]
    )
    #expect(upstream.subscriptionCount == 1)
  }

  @Test func predicate_runsOncePerValue() {
    let calls = CallCounter()
    let sides = upstream.partition { value in
      calls.increment()
      return value > 0
    }
    let a = RecordingSubscriber<Int, TestError>()
    let b = RecordingSubscriber<Int, TestError>()
    sides.matches.subscribe(a)
    sides.nonMatches.subscribe(b)
    upstream.send(1)
    upstream.send(-1)
    #expect(calls.value == 2)
  }

  @Test func cancellingBothSides_cancelsUpstream() {
    let (matches, nonMatches) = upstream.partition { $0 > 0 }
    let a = RecordingSubscriber<Int, TestError>()
    let b = RecordingSubscriber<Int, TestError>()
    matches.subscribe(a)
    nonMatches.subscribe(b)
    a.cancel()
    #expect(upstream.requests.last != .cancel)
    b.cancel()
    #expect(upstream.requests.last == .cancel)
  }

  @Test func lateSide_missesEarlierValues() {
    let (matches, nonMatches) = upstream.partition { $0 > 0 }
    let a = RecordingSubscriber<Int, TestError>()
    matches.subscribe(a)
    upstream.send(-1)
    let b = RecordingSubscriber<Int, TestError>()
    nonMatches.subscribe(b)
    upstream.send(-2)
    #expect(b.values == [-2])
  }
}
