import Dispatch
import SignalOperators
import StreamConbini
import StreamCore
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct WaitTests {
  @Test func synchronousPublisher_returnsTheValue() throws {
    let value = try Just(5).waitForValue(timeout: .seconds(5))
    #expect(value == 5)
  }

  @Test func valueFromAnotherThread_returnsTheValue() throws {
    let queue = DispatchQueue(label: "WaitTests.delivery")
    let value = try QueueJust(7, on: queue).waitForValue(timeout: .seconds(10), deliveredOn: queue)
    #expect(value == 7)
  }

  @Test func noCompletion_timesOutAndCancels() {
    let upstream = TestPublisher<Int, TestError>()
    #expect(throws: WaitError<TestError>.timedOut) {
      try upstream.waitForValue(timeout: .milliseconds(50))
    }
    #expect(upstream.requests == [.demand(.unlimited), .cancel])
  }

  @Test func failure_throwsTheFailure() {
    #expect(throws: WaitError<TestError>.failure(TestError())) {
      try Fail<Int, TestError>(error: TestError()).waitForValue(timeout: .seconds(5))
    }
  }

  @Test func emptyFinish_throwsEmpty() {
    #expect(throws: WaitError<TestError>.empty) {
      try Empty<Int, TestError>().waitForValue(timeout: .seconds(5))
    }
  }

  @Test func secondValue_throwsAndCancels() {
    let upstream = TestPublisher<Int, TestError>()
    let queue = DispatchQueue(label: "WaitTests.sender")
    let subscribed = DispatchSemaphore(value: 0)
    queue.async {
      // Bounded: without the subscription, waitForValue times out and the test fails.
      guard subscribed.wait(timeout: .now() + 60) == .success else { return }
      upstream.send(1)
      upstream.send(2)
    }
    let watched = upstream.handleSubscribe { subscribed.signal() }
    #expect(throws: WaitError<TestError>.moreThanOneValue) {
      try watched.waitForValue(timeout: .seconds(60))
    }
    #expect(upstream.requests == [.demand(.unlimited), .cancel])
  }

  @Test func calledOnDeliveryQueue_throwsWithoutSubscribing() {
    let queue = DispatchQueue(label: "WaitTests.delivery")
    let upstream = TestPublisher<Int, TestError>()
    let result = queue.sync {
      Result { () throws(WaitError<TestError>) -> Int in
        try upstream.waitForValue(timeout: .seconds(10), deliveredOn: queue)
      }
    }
    #expect(throws: WaitError<TestError>.calledOnDeliveryQueue) { try result.get() }
    #expect(upstream.subscriptionCount == 0)
  }

  @Test func calledOnQueueTargetingDeliveryQueue_throws() {
    let queue = DispatchQueue(label: "WaitTests.delivery")
    let child = DispatchQueue(label: "WaitTests.child", target: queue)
    let result = child.sync {
      Result { () throws(WaitError<TestError>) -> Int in
        try QueueJust(1, on: queue).waitForValue(timeout: .seconds(10), deliveredOn: queue)
      }
    }
    #expect(throws: WaitError<TestError>.calledOnDeliveryQueue) { try result.get() }
  }

  @Test func asyncCounterpart_returnsTheValue() async throws {
    let value = try await Just(3).singleValue()
    #expect(value == 3)
    let queue = DispatchQueue(label: "WaitTests.delivery")
    let other = try await QueueJust(4, on: queue).singleValue()
    #expect(other == 4)
  }

  @Test func asyncCounterpart_throwsFailureAndEmpty() async {
    await #expect(throws: WaitError<TestError>.failure(TestError())) {
      try await Fail<Int, TestError>(error: TestError()).singleValue()
    }
    await #expect(throws: WaitError<TestError>.empty) {
      try await Empty<Int, TestError>().singleValue()
    }
  }

  @Test func asyncCounterpartCancelled_throwsCancelledAndCancelsUpstream() async {
    let upstream = TestPublisher<Int, TestError>()
    let task = Task { try await upstream.singleValue() }
    task.cancel()
    let result = await task.result
    #expect(throws: WaitError<TestError>.cancelled) { try result.get() }
    #expect(upstream.requests.allSatisfy { $0 == .cancel || $0 == .demand(.unlimited) })
  }
}

/// Sends one value and `.finished` asynchronously on `queue`, after handing out its subscription.
private struct QueueJust: Publisher {
  typealias Output = Int
  typealias Failure = TestError

  let value: Int
  let queue: DispatchQueue

  init(_ value: Int, on queue: DispatchQueue) {
    self.value = value
    self.queue = queue
  }

  func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == TestError {
    subscriber.receive(subscription: Subscriptions.empty)
    let box = SubscriberBox(subscriber)
    let value = value
    queue.async {
      _ = box.subscriber.receive(value)
      box.subscriber.receive(completion: .finished)
    }
  }
}

/// Calls `onSubscribe` after the upstream has handed out its subscription.
private struct HandleSubscribe<Upstream: Publisher>: Publisher {
  typealias Output = Upstream.Output
  typealias Failure = Upstream.Failure

  let upstream: Upstream
  let onSubscribe: @Sendable () -> Void

  func receive<S: Subscriber>(subscriber: S)
  where S.Input == Upstream.Output, S.Failure == Upstream.Failure {
    upstream.subscribe(subscriber)
    onSubscribe()
  }
}

extension Publisher {
  fileprivate func handleSubscribe(_ body: @escaping @Sendable () -> Void) -> HandleSubscribe<Self>
  {
    HandleSubscribe(upstream: self, onSubscribe: body)
  }
}

/// Moves a subscriber to the delivery queue.
// Sendable: the subscriber is only used on the delivery queue after it is boxed.
private final class SubscriberBox<S: Subscriber>: @unchecked Sendable {
  let subscriber: S
  init(_ subscriber: S) { self.subscriber = subscriber }
}
