import Dispatch
import Foundation
import StreamCore
import Synchronization
import Testing

/// Combine's threading rules for the subjects, each with a scenario that app code meets: a value
/// is delivered on the thread that sends it, `send` returns once it was delivered, demand is
/// checked when a value is sent, a send from another thread waits for a busy subscriber, and a
/// request from inside `receive(_:)` never nests another delivery.
///
/// Threads meet at semaphores, never at a sleep: each test says which ordering it forces.
// Serialized: most tests block their thread on semaphores while other threads deliver, and in
// parallel (two cores, the AddressSanitizer run) they held the test pool long enough to starve
// each other past their limits.
@Suite(.serialized, .timeLimit(.minutes(5))) struct SubjectThreadingTests {
  /// Semaphore waits that give up after 30 seconds and count each that did, so that a broken
  /// rule fails its test instead of hanging it.
  final class Waits: Sendable {
    let timedOut = Atomic<Int>(0)
    func wait(_ semaphore: DispatchSemaphore) {
      if semaphore.wait(timeout: .now() + 30) == .timedOut {
        timedOut.add(1, ordering: .relaxed)
      }
    }
  }

  /// Lines logged from any thread, each with the thread that logged it.
  final class Log: Sendable {
    let lines = Mutex<[(line: String, thread: UInt)]>([])
    func append(_ line: String) {
      let thread = ThreadID.current.rawValue
      lines.withLock { $0.append((line, thread)) }
    }
    var all: [String] { lines.withLock { $0.map(\.line) } }
    func thread(of line: String) -> UInt? {
      lines.withLock { $0.first { $0.line == line }?.thread }
    }
    func index(of line: String) -> Int? {
      lines.withLock { $0.firstIndex { $0.line == line } }
    }
  }

  /// A value shared between threads.
  final class Shared<Value>: @unchecked Sendable {
    // Sendable: `value` is read and written only under `lock`.
    private let lock = Lock()
    private var value: Value
    init(_ value: Value) { self.value = value }
    func withLock<R>(_ body: (inout Value) -> R) -> R { lock.withLock { body(&value) } }
  }

  /// A subscriber that requests one value at a time, from inside `receive(_:)` after `body`
  /// ran, and records the values and how deeply its `receive(_:)` calls nested.
  final class OneAtATime: Subscriber, @unchecked Sendable {
    // Sendable: the counters are atomics; `subscription` and `values` are `Shared`.
    typealias Input = Int
    typealias Failure = Never
    let body: @Sendable (Int) -> Void
    let depth = Atomic<Int>(0)
    let deepest = Atomic<Int>(0)
    let received = Shared<[Int]>([])
    let subscription = Shared<(any Subscription)?>(nil)
    init(_ body: @escaping @Sendable (Int) -> Void) { self.body = body }
    var values: [Int] { received.withLock { $0 } }
    func receive(subscription: any Subscription) {
      self.subscription.withLock { $0 = subscription }
      subscription.request(.max(1))
    }
    func receive(_ input: Int) -> Subscribers.Demand {
      let level = depth.add(1, ordering: .relaxed).newValue
      _ = deepest.max(level, ordering: .relaxed)
      received.withLock { $0.append(input) }
      body(input)
      subscription.withLock { $0 }?.request(.max(1))
      depth.subtract(1, ordering: .relaxed)
      return .none
    }
    func receive(completion: Subscribers.Completion<Never>) {}
  }

  /// Runs `body` on a thread of its own, not one of Dispatch's pool: these threads block inside
  /// subscribers, and a pool that other tests hold can't always lend one at once; the returned
  /// semaphore is signalled when it returns.
  private func onThread(_ name: String, _ body: @escaping @Sendable () -> Void) -> DispatchSemaphore
  {
    let done = DispatchSemaphore(value: 0)
    let thread = Thread {
      body()
      done.signal()
    }
    thread.name = name
    thread.start()
    return done
  }

  /// Thread A is inside the second sink with 1 when thread B sends 2. B delivers 2 to the
  /// first sink at once, on B, then waits for A to leave the second sink, delivers 2 there, on
  /// B, and only then returns, as Combine's per-subscriber lock makes it. (Before: B queued 2
  /// for A and returned at once; A delivered it later, on A.)
  @Test
  func sendFromAnotherThreadWhileASubscriberIsBusy_isDeliveredOnTheSendingThreadBeforeSendReturns()
  {
    let subject = PassthroughSubject<Int, Never>()
    let log = Log()
    let waits = Waits()
    let aInside = DispatchSemaphore(value: 0)
    let aGo = DispatchSemaphore(value: 0)
    let bProgress = DispatchSemaphore(value: 0)
    let first = subject.sink { value in
      log.append("first \(value)")
      if value == 2 { bProgress.signal() }
    }
    let second = subject.sink { value in
      log.append("second \(value)")
      if value == 1 {
        aInside.signal()
        waits.wait(aGo)
        log.append("second left 1")
      }
    }
    let aDone = onThread("A") { subject.send(1) }
    waits.wait(aInside)
    let bThread = Shared<UInt>(0)
    let bDone = onThread("B") {
      bThread.withLock { $0 = ThreadID.current.rawValue }
      subject.send(2)
      log.append("B returned")
      bProgress.signal()
    }
    waits.wait(bProgress)  // B reached the first sink, or returned
    #expect(log.index(of: "B returned") == nil)  // B waits for the second sink
    aGo.signal()
    waits.wait(aDone)
    waits.wait(bDone)
    #expect(waits.timedOut.load(ordering: .relaxed) == 0)
    let b = bThread.withLock { $0 }
    #expect(log.thread(of: "first 2") == b)
    #expect(log.thread(of: "second 2") == b)
    #expect(log.index(of: "second left 1")! < log.index(of: "second 2")!)
    #expect(log.index(of: "second 2")! < log.index(of: "B returned")!)
    withExtendedLifetime((first, second)) {}
  }

  /// A completion sent from thread B while thread A is inside a subscriber waits for A to leave
  /// it, and comes after B's own value; everything B sends is delivered on B.
  @Test func completionFromAnotherThreadWhileASubscriberIsBusy_waitsAndFollowsThatThreadsValues() {
    let subject = PassthroughSubject<Int, Never>()
    let log = Log()
    let waits = Waits()
    let aInside = DispatchSemaphore(value: 0)
    let aGo = DispatchSemaphore(value: 0)
    let bProgress = DispatchSemaphore(value: 0)
    let sinks = ["first", "second"].map { name in
      subject.sink { completion in
        log.append("\(name) \(completion)")
      } receiveValue: { value in
        log.append("\(name) \(value)")
        if name == "first", value == 2 { bProgress.signal() }
        if name == "second", value == 1 {
          aInside.signal()
          waits.wait(aGo)
          log.append("second left 1")
        }
      }
    }
    let aDone = onThread("A") { subject.send(1) }
    waits.wait(aInside)
    let bThread = Shared<UInt>(0)
    let bDone = onThread("B") {
      bThread.withLock { $0 = ThreadID.current.rawValue }
      subject.send(2)
      subject.send(completion: .finished)
      log.append("B returned")
      bProgress.signal()
    }
    waits.wait(bProgress)  // B reached the first sink, or returned
    #expect(log.index(of: "B returned") == nil)
    aGo.signal()
    waits.wait(aDone)
    waits.wait(bDone)
    #expect(waits.timedOut.load(ordering: .relaxed) == 0)
    let b = bThread.withLock { $0 }
    for name in ["first", "second"] {
      let own = log.all.filter { $0.hasPrefix(name) && $0 != "second left 1" }
      #expect(own == ["\(name) 1", "\(name) 2", "\(name) finished"])
      #expect(log.thread(of: "\(name) 2") == b)
      #expect(log.thread(of: "\(name) finished") == b)
    }
    #expect(log.index(of: "second left 1")! < log.index(of: "second 2")!)
    withExtendedLifetime(sinks) {}
  }

  /// Demand is checked when a value is sent: while the subscriber (demand `.max(1)`, used by 1)
  /// is inside `receive(1)` on thread A, this thread sends 2, which finds no demand and is
  /// dropped at once; it then requests one more and sends 3, which waits for A and arrives.
  /// Combine delivers `[1, 3]`. (Before: 2 was queued for A, which took the later demand for
  /// it: `[1, 2]`.)
  @Test
  func valueSentWithoutDemand_isDroppedAtOnce_evenIfDemandArrivesBeforeTheBusySubscriberReturns() {
    let subject = PassthroughSubject<Int, Never>()
    let waits = Waits()
    let inside = DispatchSemaphore(value: 0)
    let go = DispatchSemaphore(value: 0)
    let received = Shared<[Int]>([])
    let subscription = Shared<(any Subscription)?>(nil)
    subject.subscribe(
      AnySubscriber<Int, Never>(
        receiveSubscription: { sub in
          subscription.withLock { $0 = sub }
          sub.request(.max(1))
        },
        receiveValue: { value in
          received.withLock { $0.append(value) }
          if value == 1 {
            inside.signal()
            waits.wait(go)
          }
          return .none
        },
        receiveCompletion: nil
      )
    )
    let aDone = onThread("A") { subject.send(1) }
    waits.wait(inside)
    subject.send(2)
    subscription.withLock { $0 }?.request(.max(1))
    let threeDone = onThread("sends 3") { subject.send(3) }
    go.signal()
    waits.wait(aDone)
    waits.wait(threeDone)
    #expect(waits.timedOut.load(ordering: .relaxed) == 0)
    #expect(received.withLock { $0 } == [1, 3])
  }

  /// A subscriber of a `CurrentValueSubject` that requests one value at a time from inside
  /// `receive(_:)` doesn't nest deliveries when it missed a value meanwhile: the value it is
  /// owed is delivered once `receive(_:)` has returned, on the same thread, one level deep.
  /// Thread A is inside `receive(1)` (demand used up) when this thread sends 2, which the
  /// subscriber misses; A's request then owes it the subject's value, 2. Combine delivers 2
  /// from inside the request, one level deeper each time this repeats (so a fast sender can
  /// grow the stack without bound); we deliver it after the call.
  @Test func requestFromInsideReceive_afterAMissedValue_deliversTheCurrentValueWithoutNesting() {
    let subject = CurrentValueSubject<Int, Never>(0)
    let waits = Waits()
    let inside = DispatchSemaphore(value: 0)
    let go = DispatchSemaphore(value: 0)
    let subscriber = OneAtATime { value in
      if value == 1 {
        inside.signal()
        waits.wait(go)
      }
    }
    subject.subscribe(subscriber)
    let aDone = onThread("A") { subject.send(1) }
    waits.wait(inside)
    subject.send(2)  // missed: the subscriber's demand is used up until A's request
    go.signal()
    waits.wait(aDone)
    #expect(waits.timedOut.load(ordering: .relaxed) == 0)
    #expect(subscriber.values == [0, 1, 2])
    #expect(subscriber.deepest.load(ordering: .relaxed) == 1)
  }

  /// The same within one thread: a subscriber that, inside `receive(_:)`, sends the next value
  /// (which it misses: its demand is used up) and then requests one more receives that value
  /// after `receive(_:)` has returned, never from inside the request, so the chain of sends
  /// runs at constant depth. Combine nests one level per value here.
  @Test func reentrantSendThenRequest_onACurrentValueSubject_deliversAtConstantDepth() {
    let subject = CurrentValueSubject<Int, Never>(0)
    let subscriber = OneAtATime { value in
      if value < 100 { subject.send(value + 1) }  // missed: the request comes after it
    }
    subject.subscribe(subscriber)
    #expect(subscriber.values == Array(0...100))
    #expect(subscriber.deepest.load(ordering: .relaxed) == 1)
  }

  /// A send from inside a subscriber is delivered at once, re-entrantly, to every subscriber
  /// with demand, before the outer delivery goes on to the next subscriber, as in Combine.
  @Test func sendFromInsideASubscriber_isDeliveredReentrantly() {
    let subject = PassthroughSubject<Int, Never>()
    let log = Log()
    let first = subject.sink { value in
      log.append("first \(value)")
      if value == 1 { subject.send(2) }
    }
    let second = subject.sink { value in log.append("second \(value)") }
    subject.send(1)
    #expect(log.all == ["first 1", "first 2", "second 2", "second 1"])
    withExtendedLifetime((first, second)) {}
  }

  /// Many threads sending into one subject each deliver on their own thread: every value
  /// reaches both subscribers, on the thread that sent it, and no subscriber is ever called by
  /// two threads at once.
  @Test func concurrentSenders_eachValueIsDeliveredOnItsSendersThread_withoutOverlap() {
    let subject = PassthroughSubject<Int, Never>()
    let wrongThread = Atomic<Int>(0)
    let delivered = Atomic<Int>(0)
    let overlaps = Atomic<Int>(0)
    let senders = Shared<[Int: UInt]>([:])
    let sinks = (0..<2).map { _ in
      let inside = Atomic<Bool>(false)
      return subject.sink { value in
        if inside.exchange(true, ordering: .acquiring) { overlaps.add(1, ordering: .relaxed) }
        defer { inside.store(false, ordering: .releasing) }
        let sender = senders.withLock { $0[value / 10_000] }
        if sender != ThreadID.current.rawValue { wrongThread.add(1, ordering: .relaxed) }
        delivered.add(1, ordering: .relaxed)
      }
    }
    DispatchQueue.concurrentPerform(iterations: 4) { thread in
      senders.withLock { $0[thread] = ThreadID.current.rawValue }
      for step in 0..<2_000 { subject.send(thread * 10_000 + step) }
    }
    #expect(delivered.load(ordering: .relaxed) == 2 * 4 * 2_000)
    #expect(wrongThread.load(ordering: .relaxed) == 0)
    #expect(overlaps.load(ordering: .relaxed) == 0)
    withExtendedLifetime(sinks) {}
  }
}
