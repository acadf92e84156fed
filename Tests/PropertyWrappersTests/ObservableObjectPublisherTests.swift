import Dispatch
import PropertyWrappers
import StreamCore
import StreamTesting
import Synchronization
import Testing

@Suite(.timeLimit(.minutes(5))) struct ObservableObjectPublisherTests {
  @Test func everySignal_reachesEverySubscriber_whateverItRequested() {
    // As Combine (OpenCombine's `ObservableObjectPublisherTests.testBasicBehavior`): a signal is
    // not held back for demand, so a subscriber that requested nothing still sees every change.
    let publisher = ObservableObjectPublisher()
    let eager = RecordingSubscriber<Void, Never>()
    let idle = RecordingSubscriber<Void, Never>(initialDemand: nil)
    let one = RecordingSubscriber<Void, Never>(initialDemand: .max(1))
    publisher.subscribe(eager)
    publisher.subscribe(idle)
    publisher.subscribe(one)
    publisher.send()
    publisher.send()
    #expect(eager.values.count == 2)
    #expect(idle.values.count == 2)
    #expect(one.values.count == 2)
  }

  @Test func subscription_describedAndMirroredAsCombines() throws {
    let publisher = ObservableObjectPublisher()
    let recorder = RecordingSubscriber<Void, Never>()
    publisher.subscribe(recorder)
    let subscription = try #require(recorder.subscription)
    #expect(String(describing: subscription) == "ObservableObjectPublisher")
    #expect(Mirror(reflecting: subscription).children.map(\.label) == ["downstream"])
  }

  @Test func cancel_stopsTheSignals_forThatSubscriberOnly() {
    let publisher = ObservableObjectPublisher()
    let first = RecordingSubscriber<Void, Never>()
    let second = RecordingSubscriber<Void, Never>()
    publisher.subscribe(first)
    publisher.subscribe(second)
    publisher.send()
    first.cancel()
    publisher.send()
    #expect(first.values.count == 1)
    #expect(second.values.count == 2)
  }

  @Test func cancel_releasesTheSubscriber() {
    let publisher = ObservableObjectPublisher()
    weak var released: RecordingSubscriber<Void, Never>?
    do {
      let recorder = RecordingSubscriber<Void, Never>()
      released = recorder
      publisher.subscribe(recorder)
      recorder.cancel()
    }
    #expect(released == nil)
  }

  @Test func subscriptionNeverCancelled_doesNotKeepThePublisherAlive() {
    let recorder = RecordingSubscriber<Void, Never>()
    weak var released: ObservableObjectPublisher?
    do {
      let publisher = ObservableObjectPublisher()
      released = publisher
      publisher.subscribe(recorder)
    }
    #expect(released == nil)
  }

  @Test func sendFromInsideTheSubscriber_isDeliveredReentrantly() {
    let publisher = ObservableObjectPublisher()
    var depth = 0
    var seen = 0
    let subscriber = AnySubscriber<Void, Never>(
      receiveSubscription: { _ in },
      receiveValue: {
        seen += 1
        depth += 1
        if depth == 1 { publisher.send() }
        depth -= 1
        return .none
      }
    )
    publisher.subscribe(subscriber)
    publisher.send()
    #expect(seen == 2)
  }

  @Test func concurrentSends_reachEachSubscriberOneAtATime() {
    let publisher = ObservableObjectPublisher()
    let inside = LockedCounter()
    let overlaps = LockedCounter()
    let received = LockedCounter()
    let subscriber = AnySubscriber<Void, Never>(
      receiveSubscription: { _ in },
      receiveValue: {
        if inside.increment() > 1 { _ = overlaps.increment() }
        _ = received.increment()
        _ = inside.decrement()
        return .none
      }
    )
    publisher.subscribe(subscriber)
    DispatchQueue.concurrentPerform(iterations: 4) { _ in
      for _ in 0..<2_000 { publisher.send() }
    }
    #expect(received.value == 8_000)
    #expect(overlaps.value == 0)
  }
}

/// A counter shared between threads.
private final class LockedCounter: Sendable {
  private let count = Mutex(0)

  var value: Int { count.withLock { $0 } }

  func increment() -> Int {
    count.withLock {
      $0 += 1
      return $0
    }
  }

  func decrement() -> Int {
    count.withLock {
      $0 -= 1
      return $0
    }
  }
}
