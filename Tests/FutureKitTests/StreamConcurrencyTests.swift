import Dispatch
import FutureKit
import StreamCore
import StreamPropagate
import Testing

@Suite(.timeLimit(.minutes(5))) struct StreamConcurrencyTests {
  let publisher = StreamPublisher<Int, StreamTestError>()

  /// Counts the callbacks running at once, and the most ever seen.
  final class Overlap: Sendable {
    private let state = LockedState((inside: 0, most: 0))

    func enter() {
      state.withLock { state in
        state.inside += 1
        state.most = max(state.most, state.inside)
      }
    }

    func leave() {
      state.withLock { $0.inside -= 1 }
    }

    var most: Int {
      state.withLock { $0.most }
    }
  }

  @Test func severalThreadsPublishing_nothingIsLostDuplicatedOrReordered() async {
    let subscribers = (0..<3).map { _ in publisher.subscriber() }
    let logs = subscribers.map { subscriber in
      let log = StreamLog<Int>()
      subscriber.onNewData { log.append($0) }
      return log.waits(on: subscriber)
    }
    DispatchQueue.concurrentPerform(iterations: 4) { thread in
      for value in 0..<1_000 { publisher.publish(thread * 10_000 + value) }
    }
    let reference = await logs[0].elements
    #expect(reference.count == 4_000)
    #expect(Set(reference).count == 4_000)
    for thread in 0..<4 {
      let fromThread = reference.filter { $0 / 10_000 == thread }
      #expect(fromThread == fromThread.sorted())
    }
    for log in logs.dropFirst() {
      await #expect(log.elements == reference)  // every subscriber sees the same order
    }
  }

  @Test func severalThreadsPublishing_aCallbackNeverRunsTwiceAtOnce() async {
    let overlap = Overlap()
    let calls = StreamLog<Int>()
    let subscriber = publisher.subscriber().onNewData { value in
      overlap.enter()
      for _ in 0..<100 { _ = overlap.most }
      calls.append(value)
      overlap.leave()
    }
    DispatchQueue.concurrentPerform(iterations: 4) { _ in
      for value in 0..<500 { publisher.publish(value) }
    }
    await subscriber.waitForCallbacks()
    #expect(overlap.most == 1)
    await #expect(calls.count == 2_000)  // every value, each in a call of its own
    _ = subscriber
  }

  @Test func registeringWhileOtherThreadsPublish_eachCallbackSeesAnIncreasingSequence() async {
    let subscriber = publisher.subscriber()
    let logs = (0..<100).map { _ in StreamLog<Int>() }
    let group = DispatchGroup()
    DispatchQueue.global().async(group: group) {
      for value in 0..<2_000 { publisher.publish(value) }
    }
    for log in logs {
      subscriber.onNewData { log.append($0) }
      log.waits(on: subscriber)
    }
    #expect(group.wait(timeout: .now() + 60) == .success)
    publisher.publish(2_000)  // after every registration, so no log is empty
    for log in logs {
      // From its registration on, each callback sees every value, in order: a run that ends
      // with the last one.
      let values = await log.elements
      let first = values.first ?? -1
      #expect(first >= 0)
      #expect(values == Array(first...2_000))
    }
  }

  @Test func cancellingWhileAnotherThreadPublishes_endsWithOneCancelledAndNothingAfter() async {
    for _ in 0..<50 {
      let publisher = StreamPublisher<Int, StreamTestError>()
      let subscriber = publisher.subscriber()
      let log = subscriber.record()
      let group = DispatchGroup()
      DispatchQueue.global().async(group: group) {
        for value in 0..<200 { publisher.publish(value) }
      }
      subscriber.cancel()
      #expect(group.wait(timeout: .now() + 60) == .success)
      let states = await log.elements
      #expect(states.last == .cancelled)
      #expect(states.filter(\.isCancelled).count == 1)
      // Subscribed before the first publish: the values before the cancellation, from 0 on,
      // with none lost.
      let values = states.compactMap(\.value)
      #expect(values == Array(0..<values.count))
      #expect(states.count == values.count + 1)
    }
  }

  @Test func cancelAllWhileOtherThreadsPublish_cancelledIsTheLastStateEverySubscriberSees() async {
    let subscribers = (0..<3).map { _ in publisher.subscriber() }
    let logs = subscribers.map { $0.record() }
    DispatchQueue.concurrentPerform(iterations: 4) { thread in
      for value in 0..<300 {
        if thread == 3, value == 150 { publisher.cancelAll() }
        publisher.publish(value)
      }
    }
    for log in logs {
      #expect(await log.elements.last == .cancelled)
      #expect(await log.elements.filter(\.isCancelled).count == 1)
      #expect(await log.elements == logs[0].elements)
      // Thread 3 published 150 values before it cancelled, and they all came first.
      #expect(await log.elements.count >= 151)
    }
  }

  /// One thread cancels a subscriber (the publisher forgets it under its lock) while another
  /// drops the last reference to a second one. The publisher must not read the second one's
  /// weak reference under its lock: that read makes a strong reference, which could become the
  /// last one and run the subscriber's deinit, which re-enters the lock, inside it (this crashed
  /// with "Recursive call to lock Mutex" about once in fifteen test runs).
  @Test func cancellingOneSubscriberWhileAnotherIsDropped_neverDeinitsUnderTheLock() async {
    for _ in 0..<30_000 {
      let publisher = StreamPublisher<Int, StreamTestError>()
      // Synchronous callbacks: this is about the subscribers' locks, and 30,000 rounds of
      // private queues would take minutes.
      let cancelled = publisher.subscriber()
      let cancelledLog = cancelled.recordSynchronously()
      let dropped = LockedState<StreamSubscriber<Int, StreamTestError>?>(publisher.subscriber())
      let droppedLog = dropped.withLock { $0!.recordSynchronously() }
      let kept = publisher.subscriber()
      let keptLog = kept.recordSynchronously()
      DispatchQueue.concurrentPerform(iterations: 2) { index in
        if index == 0 {
          cancelled.cancel()
        } else {
          let last = dropped.withLock { $0.take() }
          _ = last  // the last reference goes here, outside the lock
        }
      }
      publisher.publish(1)
      // Each ended once, and the publisher, still sound, reaches only the one left.
      #expect(await cancelledLog.elements == [.cancelled])
      #expect(await droppedLog.elements == [.cancelled])
      #expect(await keptLog.elements == [.data(1)])
    }
  }

  @Test func droppingSubscribersWhileAnotherThreadPublishes_neitherCrashesNorLeaks() async {
    final class Weak: @unchecked Sendable {
      weak var subscriber: StreamSubscriber<Int, StreamTestError>?
    }
    let dropped = (0..<500).map { _ in Weak() }
    let group = DispatchGroup()
    DispatchQueue.global().async(group: group) {
      for value in 0..<2_000 { publisher.publish(value) }
    }
    for slot in dropped {
      let subscriber = publisher.subscriber().onNewData { _ in }
      slot.subscriber = subscriber
    }
    #expect(group.wait(timeout: .now() + 60) == .success)
    #expect(dropped.filter { $0.subscriber != nil }.count == 0)
    let kept = publisher.subscriber()
    let log = kept.record()
    publisher.publish(2_000)
    #expect(await log.elements == [.data(2_000)])
  }

  /// A dropped subscriber's deinit forgets it in the publisher. That used to read every other
  /// subscriber's weak reference under the publisher's lock; when another thread dropped one of
  /// those at the same moment, the strong reference the read made was the last one, and
  /// releasing it under the lock ran that subscriber's deinit there, which locked again.
  @Test func droppingSubscribersOnSeveralThreadsAtOnce_neverReleasesOneUnderThePublishersLock()
    async
  {
    DispatchQueue.concurrentPerform(iterations: 4) { _ in
      for _ in 0..<2_000 {
        let batch = (0..<8).map { _ in publisher.subscriber() }
        _ = batch
      }
    }
    // The publisher is still sound: a new subscriber gets a value, and nobody was cancelled.
    let kept = publisher.subscriber()
    let log = kept.record()
    publisher.publish(7)
    #expect(await log.elements == [.data(7)])
    #expect(!publisher.isCancelled)
  }
}
