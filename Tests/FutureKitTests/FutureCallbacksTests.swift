import Dispatch
import FutureKit
import StreamConbini
import StreamCore
import StreamPropagate
import Testing

@Suite(.timeLimit(.minutes(5))) struct FutureCallbacksTests {
  let log = LockedState<[String]>([])

  @Test func onSuccess_runsAsynchronouslyNotInsideTheResolvingCall() async {
    let marker = DispatchQueue(label: "FutureCallbacksTests.resolver")
    let key = DispatchSpecificKey<Int>()
    marker.setSpecific(key: key, value: 1)
    let promise = Promise<Int, FutureTestError>()
    promise.future.onSuccess { [log] value in
      let inside = DispatchQueue.getSpecific(key: key) == 1
      log.withLock { $0.append("success \(value) inside resolve: \(inside)") }
    }
    #expect(log.withLock { $0 }.isEmpty)
    _ = marker.sync { promise.resolve(1) }
    await promise.future.waitForCallbacks()
    #expect(log.withLock { $0 } == ["success 1 inside resolve: false"])
  }

  @Test func synchronously_runsOnTheResolvingCall() {
    let promise = Promise<Int, FutureTestError>()
    promise.future
      .onSuccess(.synchronously) { [log] value in log.withLock { $0.append("success \(value)") } }
      .onFailure(.synchronously) { [log] _ in log.withLock { $0.append("failure") } }
      .finally(.synchronously) { [log] _ in log.withLock { $0.append("finally") } }
      .onComplete(.synchronously) { [log] _ in log.withLock { $0.append("complete") } }
    #expect(log.withLock { $0 }.isEmpty)
    promise.resolve(1)
    #expect(log.withLock { $0 } == ["success 1", "finally", "complete"])
    #expect(promise.future.callbackDispatchQueue == nil)
  }

  @Test func synchronouslyWhenAlreadyComplete_runsBeforeReturning() {
    Future<Int, FutureTestError>.error(.first)
      .onFailure(.synchronously) { [log] error in log.withLock { $0.append("failure \(error)") } }
    #expect(log.withLock { $0 } == ["failure first"])
  }

  @Test func onSuccessOnAFailure_doesNotRun() async {
    let promise = Promise<Int, FutureTestError>()
    promise.future.onSuccess { [log] _ in log.withLock { $0.append("success") } }
    promise.reject(.first)
    await promise.future.waitForCallbacks()
    #expect(log.withLock { $0 }.isEmpty)
  }

  @Test func onFailure_runsWithTheError() async {
    let promise = Promise<Int, FutureTestError>()
    promise.future.onFailure { [log] error in log.withLock { $0.append("failure \(error)") } }
    promise.reject(.second)
    await promise.future.waitForCallbacks()
    #expect(log.withLock { $0 } == ["failure second"])
  }

  @Test func onFailureOnASuccess_doesNotRun() async {
    let future = Future<Int, FutureTestError>.of(1)
    future.onFailure { [log] _ in log.withLock { $0.append("failure") } }
    await future.waitForCallbacks()
    #expect(log.withLock { $0 }.isEmpty)
  }

  @Test func finally_runsForBothOutcomes() async {
    let success = Future<Int, FutureTestError>.of(1).finally { [log] result in
      log.withLock { $0.append("\(result)") }
    }
    await success.waitForCallbacks()
    let failure = Future<Int, FutureTestError>.error(.third)
      .finally { [log] result in log.withLock { $0.append("\(result)") } }
    await failure.waitForCallbacks()
    #expect(log.withLock { $0 } == ["success(1)", "failure(FutureKitTests.FutureTestError.third)"])
  }

  @Test func onComplete_isFinally() async {
    let promise = Promise<Int, Never>()
    promise.future.onComplete { [log] _ in log.withLock { $0.append("complete") } }
    promise.resolve(1)
    await promise.future.waitForCallbacks()
    #expect(log.withLock { $0 } == ["complete"])
  }

  @Test func callbacksRegisteredBefore_runInRegistrationOrder() async {
    let promise = Promise<Int, FutureTestError>()
    promise.future
      .onSuccess { [log] _ in log.withLock { $0.append("a") } }
      .finally { [log] _ in log.withLock { $0.append("b") } }
      .onFailure { [log] _ in log.withLock { $0.append("never") } }
      .onSuccess { [log] _ in log.withLock { $0.append("c") } }
      .onComplete { [log] _ in log.withLock { $0.append("d") } }
    promise.resolve(1)
    await promise.future.waitForCallbacks()
    #expect(log.withLock { $0 } == ["a", "b", "c", "d"])
  }

  @Test func chaining_returnsTheSameFuture() {
    let future = Promise<Int, FutureTestError>().future
    #expect(future.onSuccess { _ in } === future)
    #expect(future.onFailure { _ in } === future)
    #expect(future.finally { _ in } === future)
    #expect(future.onComplete { _ in } === future)
  }

  @Test func registeredAfterCompletion_runsAsynchronouslyNotInsideTheRegistration() async {
    let future = Future<Int, Never>.of(2)
    let marker = DispatchQueue(label: "FutureCallbacksTests.registrar")
    let key = DispatchSpecificKey<Int>()
    marker.setSpecific(key: key, value: 1)
    _ = marker.sync {
      future.onSuccess { [log] value in
        let inside = DispatchQueue.getSpecific(key: key) == 1
        log.withLock { $0.append("late \(value) inside registration: \(inside)") }
      }
    }
    await future.waitForCallbacks()
    #expect(log.withLock { $0 } == ["late 2 inside registration: false"])
  }

  @Test func registeredBeforeAndAfterCompletion_runInRegistrationOrder() async {
    let promise = Promise<Int, Never>()
    for index in 0..<50 {
      if index == 25 { promise.resolve(1) }
      promise.future.onSuccess { [log] _ in log.withLock { $0.append("\(index)") } }
    }
    await promise.future.waitForCallbacks()
    #expect(log.withLock { $0 } == (0..<50).map { "\($0)" })
  }

  @Test func callbackInsideACallback_runsAfterItWithoutDeadlock() async {
    let promise = Promise<Int, Never>()
    let future = promise.future
    future.onSuccess { [log] _ in
      log.withLock { $0.append("outer") }
      future.onSuccess { _ in log.withLock { $0.append("inner") } }
      log.withLock { $0.append("outer done") }
    }
    promise.resolve(1)
    await future.waitForCallbacks()  // the outer callback
    await future.waitForCallbacks()  // the inner one, queued behind it
    #expect(log.withLock { $0 } == ["outer", "outer done", "inner"])
  }

  @Test func callbackReadingTheFuture_doesNotDeadlock() async {
    let promise = Promise<Int, Never>()
    let future = promise.future
    future.onSuccess { [log] _ in
      log.withLock { $0.append("value \(future.resolvedValue ?? -1)") }
      promise.resolve(2)  // loses; must not deadlock either
    }
    promise.resolve(1)
    await future.waitForCallbacks()
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

  @Test func nilQueue_runsOnThePrivateQueue() async {
    let future = Future<Int, Never>.of(1)
    future.onSuccess(onQueue: nil) { [log] _ in log.withLock { $0.append("later") } }
    #expect(future.callbackDispatchQueue != nil)
    await future.waitForCallbacks()
    #expect(log.withLock { $0 } == ["later"])
  }

  @Test func synchronousCallbacksAndSubscribers_areNotifiedInRegistrationOrder() {
    let promise = Promise<Int, Never>()
    promise.future.onSuccess(.synchronously) { [log] _ in log.withLock { $0.append("callback 1") } }
    let cancellable = promise.future.sink { [log] _ in log.withLock { $0.append("sink") } }
    promise.future.onSuccess(.synchronously) { [log] _ in log.withLock { $0.append("callback 2") } }
    promise.resolve(1)
    #expect(log.withLock { $0 } == ["callback 1", "sink", "callback 2"])
    cancellable.cancel()
  }
}
