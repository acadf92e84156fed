import Dispatch
import SignalOperators
import StreamCore
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct SignalTests {
  @Test func fire_deliversToSubscribers() {
    let signal = Signal<Int>()
    let recorder = RecordingSubscriber<Int, Never>()
    signal.fired.subscribe(recorder)
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
    signal.fired.subscribe(recorder)
    #expect(recorder.values == [2])
    signal.fire(3)
    #expect(recorder.values == [2, 3])
  }

  @Test func replaying_nothingFiredYet_nothingReplayed() {
    let signal = Signal<Int>()
    let recorder = RecordingSubscriber<Int, Never>()
    signal.fired.subscribe(recorder)
    #expect(recorder.values.isEmpty)
  }

  @Test func replaying_nilOptionalMessageIsReplayed() {
    let signal = Signal<Int?>()
    signal.fire(nil)
    let recorder = RecordingSubscriber<Int?, Never>()
    signal.fired.subscribe(recorder)
    #expect(recorder.values == [nil])
  }

  @Test func replaying_discardFirstSkipsTheReplay() {
    let signal = Signal<Int>()
    signal.fire(1)
    let recorder = RecordingSubscriber<Int, Never>()
    signal.fired.discard(first: 1).subscribe(recorder)
    signal.fire(2)
    #expect(recorder.values == [2])
  }

  @Test func notReplaying_newSubscriberGetsOnlyLaterMessages() {
    let signal = Signal<Int>(replaysLast: false)
    #expect(!signal.replaysLast)
    signal.fire(1)
    let recorder = RecordingSubscriber<Int, Never>()
    signal.fired.subscribe(recorder)
    #expect(recorder.values.isEmpty)
    signal.fire(2)
    #expect(recorder.values == [2])
  }

  @Test(arguments: [true, false])
  func demandNone_nothingDeliveredUntilRequested(replaysLast: Bool) {
    let signal = Signal<Int>(replaysLast: replaysLast)
    let recorder = RecordingSubscriber<Int, Never>(initialDemand: nil)
    signal.fired.subscribe(recorder)
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
    signal?.fired.subscribe(recorder)
    signal?.fire(1)
    signal = nil
    #expect(recorder.events == [.subscription, .value(1), .completion(.finished)])
  }

  @Test(arguments: [true, false])
  func cancel_stopsDelivery(replaysLast: Bool) {
    let signal = Signal<Int>(replaysLast: replaysLast)
    let recorder = RecordingSubscriber<Int, Never>()
    signal.fired.subscribe(recorder)
    signal.fire(1)
    recorder.cancel()
    signal.fire(2)
    #expect(recorder.values == [1])
  }

  @Test func fireFromInsideASubscriber_deliveredWithoutDeadlock() {
    let signal = Signal<Int>(replaysLast: false)
    var seen: [Int] = []
    let cancellable = signal.fired.sink { value in
      seen.append(value)
      if value == 1 { signal.fire(2) }
    }
    signal.fire(1)
    #expect(seen.sorted() == [1, 2])
    cancellable.cancel()
  }

  @Test(arguments: [true, false])
  func concurrentFires_nothingLostOrDuplicated(replaysLast: Bool) {
    let signal = Signal<Int>(replaysLast: replaysLast)
    let received = LockedState<[Int]>([])
    let cancellable = signal.fired.sink { value in received.withLock { $0.append(value) } }
    DispatchQueue.concurrentPerform(iterations: 4) { thread in
      for index in 0..<1_000 { signal.fire(thread * 1_000 + index) }
    }
    #expect(received.withLock { $0 }.sorted() == Array(0..<4_000))
    cancellable.cancel()
  }
}
