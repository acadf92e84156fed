import Dispatch
import FutureKit
import StreamCore
import Testing

@Suite(.timeLimit(.minutes(5))) struct FutureCallbacksTests {
  let log = LockedState<[String]>([])

  @Test func onSuccess_runsSynchronouslyOnTheResolvingCall() {
    let promise = Promise<Int, FutureTestError>()
    promise.future.onSuccess { [log] value in log.withLock { $0.append("success \(value)") } }
    #expect(log.withLock { $0 }.isEmpty)
    promise.resolve(1)
    #expect(log.withLock { $0 } == ["success 1"])
  }

  @Test func onSuccessOnAFailure_doesNotRun() {
    let promise = Promise<Int, FutureTestError>()
    promise.future.onSuccess { [log] _ in log.withLock { $0.append("success") } }
    promise.reject(.first)
    #expect(log.withLock { $0 }.isEmpty)
  }

  @Test func onFailure_runsWithTheError() {
    let promise = Promise<Int, FutureTestError>()
    promise.future.onFailure { [log] error in log.withLock { $0.append("failure \(error)") } }
    promise.reject(.second)
    #expect(log.withLock { $0 } == ["failure second"])
  }

  @Test func onFailureOnASuccess_doesNotRun() {
    let future = Future<Int, FutureTestError>.of(1)
    future.onFailure { [log] _ in log.withLock { $0.append("failure") } }
    #expect(log.withLock { $0 }.isEmpty)
  }

  @Test func finally_runsForBothOutcomes() {
    Future<Int, FutureTestError>.of(1).finally { [log] result in
      log.withLock { $0.append("\(result)") }
    }
    Future<Int, FutureTestError>.error(.third)
      .finally { [log] result in log.withLock { $0.append("\(result)") } }
    #expect(log.withLock { $0 } == ["success(1)", "failure(FutureKitTests.FutureTestError.third)"])
  }

  @Test func onComplete_isFinally() {
    let promise = Promise<Int, Never>()
    promise.future.onComplete { [log] _ in log.withLock { $0.append("complete") } }
    promise.resolve(1)
    #expect(log.withLock { $0 } == ["complete"])
  }

  @Test func callbacksRegisteredBefore_runInRegistrationOrder() {
    let promise = Promise<Int, FutureTestError>()
    promise.future
      .onSuccess { [log] _ in log.withLock { $0.append("a") } }
      .finally { [log] _ in log.withLock { $0.append("b") } }
      .onFailure { [log] _ in log.withLock { $0.append("never") } }
      .onSuccess { [log] _ in log.withLock { $0.append("c") } }
      .onComplete { [log] _ in log.withLock { $0.append("d") } }
    promise.resolve(1)
    #expect(log.withLock { $0 } == ["a", "b", "c", "d"])
  }

  @Test func chaining_returnsTheSameFuture() {
    let future = Promise<Int, FutureTestError>().future
    #expect(future.onSuccess { _ in } === future)
    #expect(future.onFailure { _ in } === future)
    #expect(future.finally { _ in } === future)
    #expect(future.onComplete { _ in } === future)
  }

  @Test func registeredAfterCompletion_runsAtOnceOnTheCallingThread() {
    let future = Future<Int, Never>.of(2)
    future.onSuccess { [log] value in log.withLock { $0.append("late \(value)") } }
    #expect(log.withLock { $0 } == ["late 2"])
  }

  @Test func callbackInsideACallback_runsAtOnceWithoutDeadlock() {
    let promise = Promise<Int, Never>()
    let future = promise.future
    future.onSuccess { [log] _ in
      log.withLock { $0.append("outer") }
      future.onSuccess { _ in log.withLock { $0.append("inner") } }
      log.withLock { $0.append("outer done") }
    }
    promise.resolve(1)
    #expect(log.withLock { $0 } == ["outer", "inner", "outer done"])
  }

  @Test func callbackReadingTheFuture_doesNotDeadlock() {
    let promise = Promise<Int, Never>()
    let future = promise.future
    future.onSuccess { [log] _ in
      log.withLock { $0.append("value \(future.resolvedValue ?? -1)") }
      promise.resolve(2)  // loses; must not deadlock either
    }
    promise.resolve(1)
    #expect(log.withLock { $0 } == ["value 1"])
  }

  @Test func withQueue_runsAsynchronouslyOnThatQueue() async {
    let queue = DispatchQueue(label: "FutureCallbacksTests.queue")
    let key = DispatchSpecificKey<Int>()
    queue.setSpecific(key: key, value: 7)
    let future = Future<Int, Never>.of(1)
    let onQueue = await withCheckedContinuation { continuation in
      future.onSuccess(onQueue: queue) { _ in
        continuation.resume(returning: DispatchQueue.getSpecific(key: key) == 7)
      }
    }
    #expect(onQueue)
  }

  @Test func withQueueWhenAlreadyComplete_doesNotRunBeforeReturning() {
    let queue = DispatchQueue(label: "FutureCallbacksTests.serial")
    let future = Future<Int, Never>.of(1)
    let ran = LockedState(false)
    queue.sync {
      // The queue is busy with this block, so an asynchronous callback can't have run yet.
      future.onSuccess(onQueue: queue) { _ in ran.withLock { $0 = true } }
      #expect(ran.withLock { $0 } == false)
    }
    queue.sync {}
    #expect(ran.withLock { $0 })
  }

  @Test func everyKindWithQueue_runsOnTheQueue() {
    let queue = DispatchQueue(label: "FutureCallbacksTests.kinds")
    let promise = Promise<Int, FutureTestError>()
    promise.future
      .onSuccess(onQueue: queue) { [log] _ in log.withLock { $0.append("success") } }
      .onFailure(onQueue: queue) { [log] _ in log.withLock { $0.append("failure") } }
      .finally(onQueue: queue) { [log] _ in log.withLock { $0.append("finally") } }
      .onComplete(onQueue: queue) { [log] _ in log.withLock { $0.append("complete") } }
    promise.resolve(1)
    queue.sync {}
    #expect(log.withLock { $0 } == ["success", "finally", "complete"])
  }

  @Test func nilQueue_runsSynchronously() {
    let future = Future<Int, Never>.of(1)
    future.onSuccess(onQueue: nil) { [log] _ in log.withLock { $0.append("now") } }
    #expect(log.withLock { $0 } == ["now"])
  }

  @Test func callbacksAndSubscribers_areNotifiedInRegistrationOrder() {
    let promise = Promise<Int, Never>()
    promise.future.onSuccess { [log] _ in log.withLock { $0.append("callback 1") } }
    let cancellable = promise.future.sink { [log] _ in log.withLock { $0.append("sink") } }
    promise.future.onSuccess { [log] _ in log.withLock { $0.append("callback 2") } }
    promise.resolve(1)
    #expect(log.withLock { $0 } == ["callback 1", "sink", "callback 2"])
    cancellable.cancel()
  }
}
