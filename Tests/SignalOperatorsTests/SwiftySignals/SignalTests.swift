import Dispatch
import SignalOperators
import StreamCore
import StreamSnail
import StreamSwiftySignals
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct SignalTests {
  @Test func fire_deliversToSubscribers() {
    let signal = Signal<Int>()
    let recorder = RecordingSubscriber<Int, Never>()
    signal.fired.onFiringThread().subscribe(recorder)
    signal.fire(with: 1)
    signal.fire(2)
    #expect(recorder.values == [1, 2])
  }

  @Test func replaying_newSubscriberGetsLastMessageFirst() {
    let signal = Signal<Int>()
    #expect(signal.replaysLast)
    signal.fire(1)
    signal.fire(2)
    let recorder = RecordingSubscriber<Int, Never>()
    signal.fired.onFiringThread().subscribe(recorder)
    #expect(recorder.values == [2])
    signal.fire(3)
    #expect(recorder.values == [2, 3])
  }

  @Test func replaying_nothingFiredYet_nothingReplayed() {
    let signal = Signal<Int>()
    let recorder = RecordingSubscriber<Int, Never>()
    signal.fired.onFiringThread().subscribe(recorder)
    #expect(recorder.values.isEmpty)
  }

  @Test func replaying_nilOptionalMessageIsReplayed() {
    let signal = Signal<Int?>()
    signal.fire(nil)
    let recorder = RecordingSubscriber<Int?, Never>()
    signal.fired.onFiringThread().subscribe(recorder)
    #expect(recorder.values == [nil])
  }

  @Test func replaying_discardFirstSkipsTheReplay() {
    let signal = Signal<Int>()
    signal.fire(1)
    let recorder = RecordingSubscriber<Int, Never>()
    signal.fired.onFiringThread().discard(first: 1).subscribe(recorder)
    signal.fire(2)
    #expect(recorder.values == [2])
  }

  @Test func notReplaying_newSubscriberGetsOnlyLaterMessages() {
    let signal = Signal<Int>(replaysLast: false)
    #expect(!signal.replaysLast)
    signal.fire(1)
    let recorder = RecordingSubscriber<Int, Never>()
    signal.fired.onFiringThread().subscribe(recorder)
    #expect(recorder.values.isEmpty)
    signal.fire(2)
    #expect(recorder.values == [2])
  }

  @Test(arguments: [true, false])
  func demandNone_nothingDeliveredUntilRequested(replaysLast: Bool) {
    let signal = Signal<Int>(replaysLast: replaysLast)
    let recorder = RecordingSubscriber<Int, Never>(initialDemand: nil)
    signal.fired.onFiringThread().subscribe(recorder)
    signal.fire(1)
    #expect(recorder.values.isEmpty)
    recorder.request(.max(1))
    signal.fire(2)
    #expect(recorder.violations.isEmpty)
    #expect(recorder.values.count <= 1)
  }

  @Test(arguments: [true, false])
  func releasingTheSignal_finishesSubscribers(replaysLast: Bool) {
    var signal: Signal<Int>? = Signal<Int>(replaysLast: replaysLast)
    let recorder = RecordingSubscriber<Int, Never>()
    signal?.fired.onFiringThread().subscribe(recorder)
    signal?.fire(1)
    signal = nil
    #expect(recorder.events == [.subscription, .value(1), .completion(.finished)])
  }

  @Test(arguments: [true, false])
  func cancel_stopsDelivery(replaysLast: Bool) {
    let signal = Signal<Int>(replaysLast: replaysLast)
    let recorder = RecordingSubscriber<Int, Never>()
    signal.fired.onFiringThread().subscribe(recorder)
    signal.fire(1)
    recorder.cancel()
    signal.fire(2)
    #expect(recorder.values == [1])
  }

  @Test func fireFromInsideASubscriber_isQueuedBehindTheCurrentMessage() {
    let signal = Signal<Int>(replaysLast: false)
    let first = SwiftyLog<String>()
    let second = SwiftyLog<String>()
    let a = signal.fired.onFiringThread().sink { value in
      first.append("got \(value)")
      if value == 1 {
        signal.fire(2)
        first.append("fire(2) returned")
      }
    }
    let b = signal.fired.onFiringThread().sink { second.append("got \($0)") }
    signal.fire(1)
    // Not re-entrant: 2 waits until 1 has reached every subscriber.
    #expect(first.entries == ["got 1", "fire(2) returned", "got 2"])
    #expect(second.entries == ["got 1", "got 2"])
    a.cancel()
    b.cancel()
  }

  // SwiftySignals queues every fire, so a message fired from inside a `then` reaches every
  // subscriber after the one being delivered.
  @Test func fireFromInsideThen_everySubscriberSeesTheFiringOrder() async {
    let signal = Signal<Int>(replaysLast: false)
    let first = SwiftyLog<Int>()
    let second = SwiftyLog<Int>()
    let observables = ObservableCollection()
    signal.fired
      .then { value in
        first.append(value)
        if value == 1 { signal.fire(2) }
      }
      .append(to: observables)
    signal.fired.then { second.append($0) }.append(to: observables)
    signal.fire(1)
    #expect(await first.wait(forCount: 2))
    #expect(await second.wait(forCount: 2))
    #expect(first.entries == [1, 2])
    #expect(second.entries == [1, 2])
    observables.releaseAll()
  }

  // SwiftySignals runs the closures of `then`, `filter` and `map` on the main queue by default.
  @Test func fired_closuresRunOnTheMainQueueByDefault() async {
    let signal = Signal<Int>()
    let log = SwiftyLog<String>()
    let place = { SwiftyMainQueue.isCurrent ? "main" : "other" }
    let cancellable = signal.fired
      .filter(predicate: { value in
        log.append("filter \(value) \(place())")
        return true
      })
      .map(transform: { value in
        log.append("map \(value) \(place())")
        return value * 10
      })
      .then { log.append("then \($0) \(place())") }
      .sink { _ in }
    signal.fire(1)  // from the test's thread, off the main queue
    #expect(await log.wait(forCount: 3))
    #expect(log.entries == ["filter 1 main", "map 1 main", "then 10 main"])
    cancellable.cancel()
  }

  @MainActor @Test func fired_onTheMainQueue_stillDeliversAsynchronously() async {
    let signal = Signal<Int>(replaysLast: false)
    let log = SwiftyLog<Int>()
    let cancellable = signal.fired.then { log.append($0) }.sink { _ in }
    signal.fire(1)
    #expect(log.entries.isEmpty)
    await SwiftyMainQueue.drain()
    #expect(log.entries == [1])
    cancellable.cancel()
  }

  @MainActor @Test func fired_replayAlsoArrivesOnTheMainQueueLater() async {
    let signal = Signal<Int>()
    signal.fire(5)
    let log = SwiftyLog<Int>()
    let cancellable = signal.fired.then { log.append($0) }.sink { _ in }
    #expect(log.entries.isEmpty)
    await SwiftyMainQueue.drain()
    #expect(log.entries == [5])
    cancellable.cancel()
  }

  // SwiftySignals' own tests check that `noDispatch()` never runs closures on the main queue.
  @Test func noDispatch_runsClosuresOnAPrivateSerialQueue() async {
    let signal = Signal<Int>(replaysLast: false)
    let log = SwiftyLog<String>()
    let cancellable = signal.fired.noDispatch()
      .then { log.append("\($0) \(SwiftyMainQueue.isCurrent ? "main" : "private")") }
      .sink { _ in }
    await MainActor.run {
      for value in 1...3 { signal.fire(value) }  // fired on the main queue
    }
    #expect(await log.wait(forCount: 3))
    #expect(log.entries == ["1 private", "2 private", "3 private"])
    cancellable.cancel()
  }

  @Test func dispatchTo_runsClosuresOnThatQueueWithoutTheMainQueue() async {
    let queue = DispatchQueue(label: "SignalTests.dispatchTo")
    let key = DispatchSpecificKey<Int>()
    queue.setSpecific(key: key, value: 3)
    let signal = Signal<Int>(replaysLast: false)
    let log = SwiftyLog<Int?>()
    let cancellable = signal.fired.dispatch(to: queue)
      .then { _ in log.append(DispatchQueue.getSpecific(key: key)) }
      .sink { _ in }
    #expect(signal.fired.dispatch(to: queue).queue === queue)
    signal.fire(1)
    #expect(await log.wait(forCount: 1))
    #expect(log.entries == [3])
    cancellable.cancel()
  }

  @Test func dispatchQoS_runsClosuresOffTheMainQueueInOrder() async {
    let signal = Signal<Int>(replaysLast: false)
    let log = SwiftyLog<String>()
    let cancellable = signal.fired.dispatch(qos: .userInitiated)
      .then { log.append("\($0) \(SwiftyMainQueue.isCurrent ? "main" : "private")") }
      .sink { _ in }
    await MainActor.run {
      for value in 1...3 { signal.fire(value) }
    }
    #expect(await log.wait(forCount: 3))
    #expect(log.entries == ["1 private", "2 private", "3 private"])
    cancellable.cancel()
  }

  @Test func fired_defaultQueueIsMain_onFiringThreadHasNone() {
    let signal = Signal<Int>()
    #expect(signal.fired.queue != nil)
    #expect(signal.fired.onFiringThread().queue == nil)
  }

  @Test(arguments: [true, false])
  func concurrentFires_nothingLostOrDuplicated(replaysLast: Bool) {
    let signal = Signal<Int>(replaysLast: replaysLast)
    let received = LockedState<[Int]>([])
    let cancellable = signal.fired.onFiringThread().sink { value in
      received.withLock { $0.append(value) }
    }
    DispatchQueue.concurrentPerform(iterations: 4) { thread in
      for index in 0..<1_000 { signal.fire(thread * 1_000 + index) }
    }
    #expect(received.withLock { $0 }.sorted() == Array(0..<4_000))
    cancellable.cancel()
  }

  @Test(arguments: [false, true])
  func endPoint_conforms(onAQueue: Bool) {
    let queue = DispatchQueue(label: "SignalTests.conformance")
    let conformance = PublisherConformance(
      elements: 3,
      makePublisher: {
        EndPoint(
          upstream: [1, 2, 3].publisher.eraseToAnyPublisher(),
          queue: onAQueue ? queue : nil
        )
      }
    )
    // On a queue, not SC-3.01, as `receive(on:)`'s: once the upstream's completion has arrived,
    // a cancel does nothing (as in Combine), and whether it has arrived when the cancel comes
    // depends on the queue's timing.
    let rules = ConformanceRule.all.filter { !onAQueue || $0.id != "SC-3.01" }
    // No long or failing publisher.
    conformance.run(rules).expectAllPassed(skipping: ["SC-1.05", "SC-2.04"])
  }
}
