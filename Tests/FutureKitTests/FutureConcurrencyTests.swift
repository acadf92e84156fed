import Dispatch
import FutureKit
import StreamConbini
import StreamConcurrency
import StreamCore
import StreamPropagate
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct FutureConcurrencyTests {
  @Test func valueOfASucceededFuture_returnsIt() async throws {
    #expect(try await Future<Int, FutureTestError>.of(1).value == 1)
  }

  @Test func valueOfAFailedFuture_throwsTheFailure() async {
    await #expect(throws: FutureTestError.second) {
      try await Future<Int, FutureTestError>.error(.second).value
    }
  }

  @Test func valueOfANeverFailingFuture_needsNoTry() async {
    let future = Future<Int, Never> { promise in
      DispatchQueue.global().async { promise(.success(3)) }
    }
    #expect(await future.value == 3)
  }

  @Test func valueAwaitedBeforeCompletion_returnsOnceResolved() async throws {
    let promise = Promise<Int, FutureTestError>()
    async let value = promise.future.value
    DispatchQueue.global().async { promise.resolve(8) }
    #expect(try await value == 8)
  }

  @Test func manyAwaiters_allReceiveTheValue() async {
    let promise = Promise<Int, Never>()
    await withTaskGroup(of: Int.self) { group in
      for _ in 0..<20 {
        group.addTask { await promise.future.value }
      }
      promise.resolve(4)
      var values: [Int] = []
      for await value in group {
        values.append(value)
      }
      #expect(values == Array(repeating: 4, count: 20))
    }
  }

  @Test func cancelledAwaiter_throwsCancellationError() async {
    let promise = Promise<Int, FutureTestError>()
    let task = Task { try await promise.future.value }
    task.cancel()
    await #expect(throws: CancellationError.self) { try await task.value }
    #expect(!promise.future.isComplete)
  }

  @Test func asyncInitialiser_succeedsWithTheReturnedValue() async throws {
    let future = Future<Int, any Error> { try await Task<Int, any Error> { 5 }.value }
    #expect(try await future.value == 5)
  }

  @Test func asyncInitialiser_failsWithTheThrownError() async {
    let future = Future<Int, FutureTestError> { () async throws(FutureTestError) in
      throw .third
    }
    await #expect(throws: FutureTestError.third) { try await future.value }
  }

  @Test func asyncInitialiserWithoutThrowing_isANeverFailingFuture() async {
    let future = Future<Int, Never>(priority: .high) { 7 }
    #expect(await future.value == 7)
  }

  @Test func asyncInitialiser_isAPublisher() async {
    let gate = FutureTestGate()
    let future = Future<Int, any Error> { try await gate.pass() }
    let recorder = RecordingSubscriber<Int, any Error>()
    future.subscribe(recorder)
    gate.open(2)
    _ = await future.testResult
    await recorder.waitForCompletion()
    #expect(recorder.values == [2])
    #expect(recorder.completion.map { if case .finished = $0 { true } else { false } } == true)
  }

  @Test func lastSubscriptionCancelled_cancelsTheTask() async throws {
    let gate = FutureTestGate()
    let future = Future<Int, any Error> { try await gate.pass() }
    await gate.entered()
    let first = RecordingSubscriber<Int, any Error>()
    let second = RecordingSubscriber<Int, any Error>()
    future.subscribe(first)
    future.subscribe(second)
    try #require(first.subscription).cancel()
    #expect(!gate.wasCancelled)
    try #require(second.subscription).cancel()
    #expect(gate.wasCancelled)
    let result = await future.testResult
    #expect(throws: CancellationError.self) { try result.get() }
  }

  @Test func lastSinkCancelled_cancelsTheTask() async throws {
    let gate = FutureTestGate()
    let future = Future<Int, any Error> { try await gate.pass() }
    await gate.entered()
    let token = future.sink(receiveCompletion: { _ in }, receiveValue: { _ in })
    #expect(future.waiterCount == 1)
    token.cancel()
    #expect(gate.wasCancelled)
    let result = await future.testResult
    #expect(throws: CancellationError.self) { try result.get() }
  }

  @Test func sinkCancelledWithASubscriberWaiting_keepsTheTaskUntilBothLeave() async throws {
    let gate = FutureTestGate()
    let future = Future<Int, any Error> { try await gate.pass() }
    await gate.entered()
    let token = future.sink(receiveCompletion: { _ in }, receiveValue: { _ in })
    let recorder = RecordingSubscriber<Int, any Error>()
    future.subscribe(recorder)
    try #require(recorder.subscription).cancel()
    #expect(!gate.wasCancelled)
    token.cancel()
    #expect(gate.wasCancelled)
  }

  @Test func subscriptionCancelledWithACallbackRegistered_keepsTheTaskRunning() async throws {
    let gate = FutureTestGate()
    let future = Future<Int, any Error> { try await gate.pass() }
    await gate.entered()
    future.onSuccess { _ in }
    let recorder = RecordingSubscriber<Int, any Error>()
    future.subscribe(recorder)
    try #require(recorder.subscription).cancel()
    #expect(!gate.wasCancelled)
    gate.open(3)
    #expect(try await future.testResult.get() == 3)
  }

  @Test func subscriptionCancelledWithADerivedFuture_keepsTheTaskRunning() async throws {
    let gate = FutureTestGate()
    let future = Future<Int, any Error> { try await gate.pass() }
    await gate.entered()
    let doubled = future.mapValue { $0 * 2 }
    let recorder = RecordingSubscriber<Int, any Error>()
    future.subscribe(recorder)
    try #require(recorder.subscription).cancel()
    #expect(!gate.wasCancelled)
    gate.open(3)
    #expect(try await doubled.testResult.get() == 6)
  }

  @Test func subscriptionCancelledWhileAnotherTaskAwaits_keepsTheTaskRunning() async throws {
    let gate = FutureTestGate()
    let future = Future<Int, any Error> { try await gate.pass() }
    await gate.entered()
    let recorder = RecordingSubscriber<Int, any Error>()
    future.subscribe(recorder)
    let awaiting = Task { try await future.value }
    // Wait until the awaiter has joined the subscriber (a condition, not a timing guess), for
    // at most a minute.
    try #require(await eventually { future.waiterCount >= 2 })
    try #require(recorder.subscription).cancel()
    #expect(!gate.wasCancelled)
    gate.open(4)
    #expect(try await awaiting.value == 4)
  }

  @Test func lastAwaiterCancelled_cancelsTheTask() async throws {
    let gate = FutureTestGate()
    let future = Future<Int, any Error> { try await gate.pass() }
    await gate.entered()
    let awaiting = Task { try await future.value }
    try #require(await eventually { future.waiterCount >= 1 })
    awaiting.cancel()
    await #expect(throws: CancellationError.self) { try await awaiting.value }
    #expect(gate.wasCancelled)
  }

  @Test func neverSubscribed_keepsRunning() async throws {
    let gate = FutureTestGate()
    let future = Future<Int, any Error> { try await gate.pass() }
    await gate.entered()
    #expect(!gate.wasCancelled)
    gate.open(1)
    #expect(try await future.testResult.get() == 1)
  }

  @Test func subscriptionCancelledAfterCompletion_cancelsNothing() async throws {
    let future = Future<Int, any Error> { 1 }
    _ = await future.testResult
    let recorder = RecordingSubscriber<Int, any Error>(initialDemand: nil)
    future.subscribe(recorder)
    try #require(recorder.subscription).cancel()
    #expect(future.resolvedValue == 1)
  }
}
