import Dispatch
import SignalOperators
import StreamConcurrency
import StreamCore
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct AsyncPublisherTests {
  @Test func sequence_yieldsEveryValue_thenEnds() async {
    var received: [Int] = []
    for await value in [1, 2, 3].publisher.values {
      received.append(value)
    }
    #expect(received == [1, 2, 3])
  }

  @Test func empty_endsAtOnce() async {
    var iterator = Empty<Int, Never>().values.makeAsyncIterator()
    #expect(await iterator.next() == nil)
    #expect(await iterator.next() == nil)
  }

  @Test func makingIterator_subscribesWithoutDemand() {
    let upstream = TestPublisher<Int, Never>()
    let iterator = upstream.values.makeAsyncIterator()
    #expect(upstream.subscriptionCount == 1)
    #expect(upstream.requests.isEmpty)
    withExtendedLifetime(iterator) {}
  }

  @Test func next_requestsOneValue() async {
    let upstream = TestPublisher<Int, Never>()
    let iterator = upstream.values.makeAsyncIterator()
    let task = Task {
      var iterator = iterator
      let first = await iterator.next()
      let second = await iterator.next()
      return [first, second]
    }
    #expect(await asyncBridgeEventually { upstream.requests == [.demand(.max(1))] })
    upstream.send(1)
    #expect(await asyncBridgeEventually { upstream.requests.count == 2 })
    upstream.send(2)
    #expect(await task.value == [1, 2])
    #expect(upstream.requests == [.demand(.max(1)), .demand(.max(1))])
    #expect(upstream.violations.isEmpty)
  }

  @Test func taskCancelled_cancelsSubscription_andNextReturnsNil() async {
    let upstream = TestPublisher<Int, Never>()
    let task = Task {
      var iterator = upstream.values.makeAsyncIterator()
      return await iterator.next()
    }
    #expect(await asyncBridgeEventually { upstream.requests == [.demand(.max(1))] })
    task.cancel()
    #expect(await task.value == nil)
    #expect(upstream.requests == [.demand(.max(1)), .cancel])
  }

  @Test func iteratorDropped_cancelsSubscription() {
    let upstream = TestPublisher<Int, Never>()
    do {
      let iterator = upstream.values.makeAsyncIterator()
      withExtendedLifetime(iterator) {}
    }
    #expect(upstream.requests == [.cancel])
  }

  @Test func finishedWhileWaiting_nextReturnsNil() async {
    let upstream = TestPublisher<Int, Never>()
    let task = Task {
      var iterator = upstream.values.makeAsyncIterator()
      return await iterator.next()
    }
    #expect(await asyncBridgeEventually { upstream.requests.count == 1 })
    upstream.send(completion: .finished)
    #expect(await task.value == nil)
  }

  @Test func unbounded_keepsEveryValueOfAFastSubject() async {
    let subject = PassthroughSubject<Int, Never>()
    var iterator = subject.values(bufferingPolicy: .unbounded).makeAsyncIterator()
    for value in 0..<10_000 {
      subject.send(value)
    }
    subject.send(completion: .finished)
    var received: [Int] = []
    while let value = await iterator.next() {
      received.append(value)
    }
    #expect(received == Array(0..<10_000))
  }

  @Test func buffered_requestsUnlimitedWhenIteratorIsMade() {
    let upstream = TestPublisher<Int, Never>()
    let iterator = upstream.values(bufferingPolicy: .unbounded).makeAsyncIterator()
    #expect(upstream.requests == [.demand(.unlimited)])
    withExtendedLifetime(iterator) {}
  }

  @Test func bufferingOldest_keepsTheFirstValues() async {
    let subject = PassthroughSubject<Int, Never>()
    var iterator = subject.values(bufferingPolicy: .bufferingOldest(3)).makeAsyncIterator()
    for value in 0..<10 {
      subject.send(value)
    }
    subject.send(completion: .finished)
    var received: [Int] = []
    while let value = await iterator.next() {
      received.append(value)
    }
    #expect(received == [0, 1, 2])
  }

  @Test func bufferingNewest_keepsTheLastValues() async {
    let subject = PassthroughSubject<Int, Never>()
    var iterator = subject.values(bufferingPolicy: .bufferingNewest(3)).makeAsyncIterator()
    for value in 0..<1_000 {
      subject.send(value)
    }
    subject.send(completion: .finished)
    var received: [Int] = []
    while let value = await iterator.next() {
      received.append(value)
    }
    #expect(received == [997, 998, 999])
  }

  @Test func bufferingNewest_zeroLimit_traps() async {
    let trap1 = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      _ = PassthroughSubject<Int, Never>().values(bufferingPolicy: .bufferingNewest(0))
        .makeAsyncIterator()
    }
    expectTrap(trap1, "values(bufferingPolicy:): the limit must be positive, got 0")
  }

  @Test func concurrentSenders_unbounded_loseNothing() async {
    let subject = PassthroughSubject<Int, Never>()
    var iterator = subject.values(bufferingPolicy: .unbounded).makeAsyncIterator()
    DispatchQueue.concurrentPerform(iterations: 4) { thread in
      for value in 0..<2_000 {
        subject.send(thread * 10_000 + value)
      }
    }
    subject.send(completion: .finished)
    var received: [Int] = []
    while let value = await iterator.next() {
      received.append(value)
    }
    let expected = (0..<4).flatMap { thread in (0..<2_000).map { thread * 10_000 + $0 } }
    #expect(received.count == expected.count)
    #expect(Set(received) == Set(expected))
  }

  @Test func readerAndSendersConcurrently_loseNothing() async {
    let subject = PassthroughSubject<Int, Never>()
    let iterator = subject.values(bufferingPolicy: .unbounded).makeAsyncIterator()
    let reader = Task {
      var iterator = iterator
      var sum = 0
      var count = 0
      while let value = await iterator.next() {
        sum += value
        count += 1
      }
      return [sum, count]
    }
    DispatchQueue.global().async {
      DispatchQueue.concurrentPerform(iterations: 2) { _ in
        for value in 1...5_000 {
          subject.send(value)
        }
      }
      subject.send(completion: .finished)
    }
    #expect(await reader.value == [2 * (5_000 * 5_001 / 2), 10_000])
  }
}
