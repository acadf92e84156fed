import Dispatch
import StreamCore
import Synchronization
import Testing

/// Several threads send, request and cancel at once. Run under `--sanitize=thread` in CI.
@Suite(.timeLimit(.minutes(5))) struct SubjectStressTests {
  static let threads = 4
  static let perThread = 5_000

  /// A subscriber that fails the test if two of its methods ever run at the same time, or if it
  /// receives more values than it asked for.
  final class Checker: Subscriber, @unchecked Sendable {
    // Sendable: counters are atomics; `subscription` is written once, before any value.
    typealias Input = Int
    typealias Failure = Never

    let overlaps = Atomic<Int>(0)
    let received = Atomic<Int>(0)
    let requested = Atomic<Int>(0)
    let completions = Atomic<Int>(0)
    let initialDemand: Subscribers.Demand
    let perValue: Subscribers.Demand
    private let subscriptionLock = Lock()
    private var _subscription: (any Subscription)?

    init(initialDemand: Subscribers.Demand, perValue: Subscribers.Demand = .none) {
      self.initialDemand = initialDemand
      self.perValue = perValue
    }

    var subscription: (any Subscription)? { subscriptionLock.withLock { _subscription } }

    /// The thread inside the subscriber, 0 when none; a re-entrant call from the same thread
    /// (a subject delivering re-entrantly) is not an overlap.
    private let owner = Atomic<UInt>(0)
    private let depth = Atomic<Int>(0)

    private func enter() -> Bool {
      let me = ThreadID.current.rawValue
      let (exchanged, original) = owner.compareExchange(
        expected: 0,
        desired: me,
        ordering: .acquiringAndReleasing
      )
      guard exchanged || original == me else {
        overlaps.add(1, ordering: .relaxed)
        return false
      }
      depth.add(1, ordering: .relaxed)
      return true
    }

    private func leave(_ entered: Bool) {
      guard entered else { return }
      if depth.subtract(1, ordering: .relaxed).newValue == 0 {
        owner.store(0, ordering: .releasing)
      }
    }

    func receive(subscription: any Subscription) {
      let entered = enter()
      defer { leave(entered) }
      subscriptionLock.withLock { _subscription = subscription }
      requested.add(initialDemand.max ?? Int.max / 2, ordering: .relaxed)
      subscription.request(initialDemand)
    }

    func receive(_ input: Int) -> Subscribers.Demand {
      let entered = enter()
      defer { leave(entered) }
      received.add(1, ordering: .relaxed)
      requested.add(perValue.max ?? 0, ordering: .relaxed)
      return perValue
    }

    func receive(completion: Subscribers.Completion<Never>) {
      let entered = enter()
      defer { leave(entered) }
      completions.add(1, ordering: .relaxed)
    }
  }

  private func concurrently(_ body: @Sendable @escaping (Int) -> Void) {
    DispatchQueue.concurrentPerform(iterations: Self.threads, execute: body)
  }

  @Test func concurrentSends_unlimited_nothingLostOrOverlapping() {
    let subject = PassthroughSubject<Int, Never>()
    let checkers = (0..<3).map { _ in Checker(initialDemand: .unlimited) }
    for checker in checkers { subject.subscribe(checker) }
    concurrently { thread in
      for value in 0..<Self.perThread { subject.send(thread * Self.perThread + value) }
    }
    subject.send(completion: .finished)
    for checker in checkers {
      #expect(checker.received.load(ordering: .relaxed) == Self.threads * Self.perThread)
      #expect(checker.overlaps.load(ordering: .relaxed) == 0)
      #expect(checker.completions.load(ordering: .relaxed) == 1)
    }
  }

  @Test func concurrentSendsAndRequests_neverBeyondDemand() {
    let subject = PassthroughSubject<Int, Never>()
    let checker = Checker(initialDemand: .max(1), perValue: .none)
    subject.subscribe(checker)
    concurrently { thread in
      for value in 0..<Self.perThread {
        if thread == 0, value % 4 == 0 {
          checker.requested.add(1, ordering: .relaxed)
          checker.subscription?.request(.max(1))
        }
        subject.send(value)
      }
    }
    let received = checker.received.load(ordering: .relaxed)
    #expect(received <= checker.requested.load(ordering: .relaxed))
    #expect(received > 0)
    #expect(checker.overlaps.load(ordering: .relaxed) == 0)
  }

  @Test func concurrentCurrentValueSets_lastValueArrives() {
    let subject = CurrentValueSubject<Int, Never>(-1)
    let checker = Checker(initialDemand: .max(1), perValue: .max(1))
    subject.subscribe(checker)
    concurrently { thread in
      for value in 0..<Self.perThread { subject.send(thread * Self.perThread + value) }
    }
    subject.value = 1_000_000
    #expect(subject.value == 1_000_000)
    #expect(checker.overlaps.load(ordering: .relaxed) == 0)
    #expect(checker.received.load(ordering: .relaxed) <= Self.threads * Self.perThread + 2)
  }

  @Test func concurrentCancelWhileSending_stopsForGood() {
    let subject = PassthroughSubject<Int, Never>()
    let checkers = (0..<8).map { _ in Checker(initialDemand: .unlimited) }
    for checker in checkers { subject.subscribe(checker) }
    concurrently { thread in
      for value in 0..<Self.perThread {
        subject.send(value)
        if thread == 0, value % 500 == 0 {
          checkers[value / 500 % checkers.count].subscription?.cancel()
        }
      }
    }
    let counts = checkers.map { $0.received.load(ordering: .relaxed) }
    subject.send(0)
    subject.send(completion: .finished)
    for (checker, count) in zip(checkers, counts) {
      #expect(checker.overlaps.load(ordering: .relaxed) == 0)
      #expect(checker.received.load(ordering: .relaxed) == count)
      #expect(checker.completions.load(ordering: .relaxed) == 0)
    }
  }

  @Test func concurrentSubscribeAndCancel_whileSending() {
    let subject = PassthroughSubject<Int, Never>()
    let delivered = Atomic<Int>(0)
    concurrently { thread in
      if thread == 0 {
        for _ in 0..<2_000 {
          let token = subject.sink { _ in delivered.add(1, ordering: .relaxed) }
          token.cancel()
        }
      } else {
        for value in 0..<Self.perThread { subject.send(value) }
      }
    }
    subject.send(completion: .finished)
    #expect(delivered.load(ordering: .relaxed) <= 2_000 * (Self.threads - 1) * Self.perThread)
    let late = Recorder<Int, Never>()
    subject.subscribe(late)
    #expect(late.completions == [.finished])
  }

  @Test func concurrentCompletionAndSends_exactlyOneCompletion() {
    for _ in 0..<50 {
      let subject = PassthroughSubject<Int, Never>()
      let checker = Checker(initialDemand: .unlimited)
      subject.subscribe(checker)
      concurrently { thread in
        for value in 0..<100 {
          subject.send(value)
          if value == 50 { subject.send(completion: .finished) }
        }
      }
      #expect(checker.completions.load(ordering: .relaxed) == 1)
      #expect(checker.overlaps.load(ordering: .relaxed) == 0)
    }
  }
}
