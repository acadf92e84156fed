import Dispatch
import Foundation
import SignalOperators
import StreamCore
import StreamSnail
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct SnailSubscribeTests {
  let upstream = TestPublisher<Int, SnailOpsError>()

  @Test func noQueue_deliversSynchronouslyOnSendingThread() {
    let log = SnailOpsLog<String>()
    let token = upstream.subscribe(
      onNext: { log.append("next \($0)") },
      onError: { log.append("error \($0)") },
      onDone: { log.append("done") }
    )
    upstream.send(1)
    #expect(log.entries == ["next 1"])
    upstream.send(2)
    upstream.send(completion: .finished)
    #expect(log.entries == ["next 1", "next 2", "done"])
    upstream.send(3)
    #expect(log.entries.count == 3)
    _ = token
  }

  @Test func noQueue_failure_callsOnErrorOnce() {
    let log = SnailOpsLog<String>()
    let token = upstream.subscribe(
      onNext: { log.append("next \($0)") },
      onError: { log.append("error \($0)") },
      onDone: { log.append("done") }
    )
    upstream.send(1)
    upstream.send(completion: .failure(.boom))
    upstream.send(completion: .finished)
    #expect(log.entries == ["next 1", "error boom"])
    _ = token
  }

  @Test func requestsUnlimited() {
    let token = upstream.subscribe(onNext: { _ in })
    #expect(upstream.requests == [.demand(.unlimited)])
    token.cancel()
    #expect(upstream.requests == [.demand(.unlimited), .cancel])
  }

  @Test func cancel_stopsDeliveryAndReleasesClosures() {
    final class Probe: Sendable {}
    let log = SnailOpsLog<Int>()
    weak var weakProbe: Probe?
    var token: SnailSubscription?
    do {
      let probe = Probe()
      weakProbe = probe
      token = upstream.subscribe(onNext: {
        _ = probe
        log.append($0)
      })
    }
    upstream.send(1)
    #expect(weakProbe != nil)
    token?.cancel()
    upstream.send(2)
    #expect(log.entries == [1])
    #expect(weakProbe == nil)
  }

  @Test func completion_releasesClosures() {
    final class Probe: Sendable {}
    weak var weakProbe: Probe?
    var token: SnailSubscription?
    do {
      let probe = Probe()
      weakProbe = probe
      token = upstream.subscribe(onDone: { _ = probe })
    }
    #expect(weakProbe != nil)
    upstream.send(completion: .finished)
    #expect(weakProbe == nil)
    _ = token
  }

  // Snail's observables keep their subscribers until they are disposed, so a subscription
  // whose result is ignored keeps receiving until the source ends.
  @Test func droppedResult_keepsTheSubscriptionUntilTheSourceEnds() {
    final class Probe: Sendable {}
    let log = SnailOpsLog<Int>()
    weak var weakProbe: Probe?
    do {
      let probe = Probe()
      weakProbe = probe
      upstream.subscribe(onNext: {
        _ = probe
        log.append($0)
      })
    }
    upstream.send(1)
    upstream.send(2)
    #expect(log.entries == [1, 2])
    #expect(upstream.requests == [.demand(.unlimited)])
    #expect(weakProbe != nil)
    upstream.send(completion: .finished)
    #expect(weakProbe == nil)
  }

  @Test func droppedResult_onASubject_releasedWhenTheSubjectFinishes() {
    final class Probe: Sendable {}
    let subject = PassthroughSubject<Int, Never>()
    let log = SnailOpsLog<String>()
    weak var weakProbe: Probe?
    do {
      let probe = Probe()
      weakProbe = probe
      subject.subscribe(
        onNext: {
          _ = probe
          log.append("next \($0)")
        },
        onDone: { log.append("done") }
      )
    }
    subject.send(1)
    #expect(weakProbe != nil)
    subject.send(completion: .finished)
    #expect(log.entries == ["next 1", "done"])
    #expect(weakProbe == nil)
  }

  @Test func dispose_endsTheSubscription_andReleasesTheClosures() {
    final class Probe: Sendable {}
    let subject = PassthroughSubject<Int, Never>()
    let log = SnailOpsLog<Int>()
    weak var weakProbe: Probe?
    let subscription: SnailSubscription
    do {
      let probe = Probe()
      weakProbe = probe
      subscription = subject.subscribe(onNext: {
        _ = probe
        log.append($0)
      })
    }
    subject.send(1)
    subscription.dispose()
    subscription.dispose()  // idempotent, as in Snail
    subject.send(2)
    #expect(log.entries == [1])
    #expect(weakProbe == nil)
  }

  @Test func disposer_disposeAll_endsTheSubscription() {
    final class Probe: Sendable {}
    let subject = PassthroughSubject<Int, Never>()
    let disposer = Disposer()
    let log = SnailOpsLog<Int>()
    weak var weakProbe: Probe?
    do {
      let probe = Probe()
      weakProbe = probe
      subject.subscribe(onNext: {
        _ = probe
        log.append($0)
      })
      .add(to: disposer)
    }
    subject.send(1)
    disposer.disposeAll()
    subject.send(2)
    #expect(log.entries == [1])
    #expect(weakProbe == nil)
  }

  @Test func cancelFromOnNext_stopsAtOnce() {
    let log = SnailOpsLog<Int>()
    let box = LockedState<SnailSubscription?>(nil)
    let token = upstream.subscribe(onNext: { value in
      log.append(value)
      box.withLock { $0 }?.cancel()
    })
    box.withLock { $0 = token }
    upstream.send(1)
    upstream.send(2)
    #expect(log.entries == [1])
  }

  @Test func otherQueue_deliversAsynchronouslyInOrder() {
    let queue = DispatchQueue(label: "snail.subscribe.serial")
    let key = DispatchSpecificKey<UInt8>()
    queue.setSpecific(key: key, value: 1)
    let log = SnailOpsLog<String>()
    let gate = DispatchSemaphore(value: 0)
    // Hold the queue so delivery can only be asynchronous.
    queue.async { _ = gate.wait(timeout: .now() + 60) }
    let token = upstream.subscribe(
      queue: queue,
      onNext: { log.append(DispatchQueue.getSpecific(key: key) == 1 ? "q\($0)" : "x\($0)") },
      onDone: { log.append("done") }
    )
    for value in 0..<100 { upstream.send(value) }
    upstream.send(completion: .finished)
    #expect(log.entries.isEmpty)
    gate.signal()
    queue.sync {}
    #expect(log.entries == (0..<100).map { "q\($0)" } + ["done"])
    _ = token
  }

  @Test func concurrentQueue_keepsOrder() {
    let queue = DispatchQueue(label: "snail.subscribe.concurrent", attributes: .concurrent)
    let log = SnailOpsLog<Int>()
    let done = DispatchSemaphore(value: 0)
    let token = upstream.subscribe(
      queue: queue,
      onNext: { log.append($0) },
      onDone: { done.signal() }
    )
    for value in 0..<1000 { upstream.send(value) }
    upstream.send(completion: .finished)
    #expect(done.wait(timeout: .now() + 60) == .success)
    #expect(log.entries == Array(0..<1000))
    _ = token
  }

  @Test func otherQueue_cancelBeforeDrain_dropsPending() {
    let queue = DispatchQueue(label: "snail.subscribe.cancel")
    let log = SnailOpsLog<Int>()
    let gate = DispatchSemaphore(value: 0)
    queue.async { _ = gate.wait(timeout: .now() + 60) }
    let token = upstream.subscribe(queue: queue, onNext: { log.append($0) })
    upstream.send(1)
    token.cancel()
    gate.signal()
    queue.sync {}
    #expect(log.entries.isEmpty)
  }

  @MainActor @Test func mainQueue_sendingOnMainActor_deliversSynchronously() {
    let log = SnailOpsLog<Int>()
    let token = upstream.subscribe(queue: .main, onNext: { log.append($0) })
    upstream.send(1)
    #expect(log.entries == [1])
    _ = token
  }

  @Test func mainQueue_sendingInMainQueueBlock_deliversSynchronously() async {
    let log = SnailOpsLog<Int>()
    let upstream = self.upstream
    let token = upstream.subscribe(queue: .main, onNext: { log.append($0) })
    let seenAfterSend = await withCheckedContinuation { continuation in
      DispatchQueue.main.async {
        upstream.send(1)
        continuation.resume(returning: log.entries)
      }
    }
    #expect(seenAfterSend == [1])
    _ = token
  }

  @MainActor @Test func mainQueue_sendingOffMain_deliversAsynchronouslyOnMain() async {
    let log = SnailOpsLog<String>()
    let key = DispatchSpecificKey<UInt8>()
    DispatchQueue.main.setSpecific(key: key, value: 7)
    defer { DispatchQueue.main.setSpecific(key: key, value: nil) }
    let upstream = self.upstream
    let token = upstream.subscribe(
      queue: .main,
      onNext: { log.append(DispatchQueue.getSpecific(key: key) == 7 ? "main \($0)" : "other") }
    )
    sendOffMainAndWait(upstream, 1)
    // The main thread was blocked until `send` returned, so delivery can only be pending.
    #expect(log.entries.isEmpty)
    await withCheckedContinuation { continuation in
      DispatchQueue.main.async { continuation.resume() }
    }
    #expect(log.entries == ["main 1"])
    _ = token
  }

  @MainActor @Test func mainQueue_valueAndCompletionOnMain_comeAfterValuesQueuedFromOffMain() async
  {
    let log = SnailOpsLog<String>()
    let upstream = self.upstream
    let token = upstream.subscribe(
      queue: .main,
      onNext: { log.append("\($0)") },
      onDone: { log.append("done") }
    )
    sendOffMainAndWait(upstream, 1)  // queued for main, which is busy here
    upstream.send(2)  // on main: after 1, not before it
    upstream.send(completion: .finished)  // on main: after 1 and 2, which it must not drop
    #expect(log.entries.isEmpty)
    await withCheckedContinuation { continuation in
      DispatchQueue.main.async { continuation.resume() }
    }
    #expect(log.entries == ["1", "2", "done"])
    _ = token
  }

  @MainActor @Test func mainQueue_valueOnMainWhileNothingIsQueued_stillDeliveredAtOnce() {
    let log = SnailOpsLog<String>()
    let token = upstream.subscribe(
      queue: .main,
      onNext: { log.append("\($0)") },
      onDone: { log.append("done") }
    )
    upstream.send(1)
    upstream.send(completion: .finished)
    #expect(log.entries == ["1", "done"])
    _ = token
  }

  @Test func concurrentSends_nothingLostOrDuplicated() {
    let subject = PassthroughSubject<Int, Never>()
    let log = SnailOpsLog<Int>()
    let token = subject.subscribe(onNext: { log.append($0) })
    DispatchQueue.concurrentPerform(iterations: 4) { worker in
      for value in 0..<250 { subject.send(worker * 250 + value) }
    }
    #expect(log.entries.sorted() == Array(0..<1000))
    _ = token
  }
}

/// Sends `value` from another thread and blocks the caller until `send` has returned.
private func sendOffMainAndWait(_ upstream: TestPublisher<Int, SnailOpsError>, _ value: Int) {
  let sent = DispatchSemaphore(value: 0)
  // A thread of its own, not a global queue: the main thread blocks here, and the global
  // queues' few threads may all be busy with other tests on a small machine.
  Thread {
    upstream.send(value)
    sent.signal()
  }.start()
  #expect(sent.wait(timeout: .now() + 60) == .success)
}
