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

  @Test func severalWaitingTasks_eachRequestsOneValue_andAreAnsweredInOrder() async {
    let upstream = TestPublisher<Int, Never>()
    let iterator = SharedIterator(upstream.values.makeAsyncIterator())
    let tasks = await iterator.waitingTasks(3) { upstream.requests.count }
    #expect(upstream.requests == Array(repeating: .demand(.max(1)), count: 3))
    for value in 1...3 {
      upstream.send(value)
    }
    var received: [Int?] = []
    for task in tasks {
      received.append(await task.value)
    }
    #expect(received == [1, 2, 3])
    #expect(upstream.violations.isEmpty)
  }

  @Test func oneOfSeveralWaitingTasksCancelled_endsTheIterationForAll() async throws {
    let upstream = TestPublisher<Int, Never>()
    let iterator = SharedIterator(upstream.values.makeAsyncIterator())
    let first = Task { try? await iterator.next() }
    #expect(await asyncBridgeEventually { upstream.requests.count == 1 })
    let second = Task { try? await iterator.next() }
    #expect(await asyncBridgeEventually { upstream.requests.count == 2 })
    second.cancel()
    #expect(await first.value == nil)
    #expect(await second.value == nil)
    #expect(upstream.requests == [.demand(.max(1)), .demand(.max(1)), .cancel])
    #expect(try await iterator.next() == nil)
  }

  @Test func finishedWithSeveralWaitingTasks_endsEach() async {
    let upstream = TestPublisher<Int, Never>()
    let iterator = SharedIterator(upstream.values.makeAsyncIterator())
    let tasks = await iterator.waitingTasks(2) { upstream.requests.count }
    upstream.send(completion: .finished)
    for task in tasks {
      #expect(await task.value == nil)
    }
  }

  @Test func valueThatNoNextRequested_traps() async {
    let trap = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      let iterator = UnrequestedValuePublisher().values.makeAsyncIterator()
      withExtendedLifetime(iterator) {}
    }
    expectTrap(trap, "AsyncPublisher: received a value that no next() requested")
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

/// Sends a value as soon as it is subscribed, without waiting for demand: it breaks the
/// Subscriber contract, which Combine's `values` traps on.
private struct UnrequestedValuePublisher: Publisher {
  typealias Output = Int
  typealias Failure = Never

  func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == Never {
    subscriber.receive(subscription: IgnoredSubscription())
    _ = subscriber.receive(1)
  }
}

/// One iterator that several tasks await at once, as Combine allows (throwing or not).
// Sendable: the iterator only holds a reference to its subscriber, which serialises the calls;
// `next()` never writes to the iterator itself.
final class SharedIterator<Base: AsyncIteratorProtocol>: @unchecked Sendable {
  private let base: Base

  init(_ base: Base) {
    self.base = base
  }

  func next() async throws -> Base.Element? {
    var copy = base
    return try await copy.next()
  }

  /// Starts `count` tasks awaiting `next()`, each once the one before has asked for its value
  /// (`requested()` counts the requests), so the order of the calls is known. A task whose
  /// `next()` throws returns `nil`.
  func waitingTasks(
    _ count: Int,
    requested: @escaping @Sendable () -> Int
  ) async -> [Task<Base.Element?, Never>] where Base.Element: Sendable, Base: SendableMetatype {
    var tasks: [Task<Base.Element?, Never>] = []
    for waiting in 1...count {
      tasks.append(Task { try? await self.next() })
      #expect(await asyncBridgeEventually { requested() == waiting })
    }
    return tasks
  }
}
