import Dispatch
import SignalOperators
import StreamCore
import Synchronization
import Testing

/// `flatMap`'s child values from several threads at once, on the path that gives the drain back
/// without the lock (unlimited demand) and across its hand-overs to the locked path (requests,
/// cancels, completions and queued values recorded while a value is being delivered). Run under
/// `--sanitize=thread` as well.
@Suite(.timeLimit(.minutes(5))) struct FlatMapClaimStressTests {
  static let threads = 4
  static let perThread = 3_000

  /// Subject children, one per thread, flattened into `subscriber`; the upstream has finished,
  /// so the stream finishes after the last child.
  func subscribeSubjects<S: Subscriber>(
    _ subscriber: S
  ) -> [PassthroughSubject<Int, Never>] where S.Input == Int, S.Failure == Never {
    let children = (0..<Self.threads).map { _ in PassthroughSubject<Int, Never>() }
    children.publisher.flatMap { $0 }.subscribe(subscriber)
    return children
  }

  static func expected(_ count: Int = perThread) -> [Int] {
    (0..<threads).flatMap { thread in (0..<count).map { thread * 100_000 + $0 } }
  }

  @Test func unlimited_sendsFromEveryThread_nothingLostNothingOverlaps() {
    let checker = DemandChecker(initialDemand: .unlimited)
    let children = subscribeSubjects(checker)
    DispatchQueue.concurrentPerform(iterations: Self.threads + 1) { index in
      guard index < Self.threads else {
        // Requests while values go down: they add nothing to unlimited demand, but take the
        // lock while the drain is held or was let go without it.
        for _ in 0..<500 { checker.request(.unlimited) }
        return
      }
      for value in 0..<Self.perThread { children[index].send(index * 100_000 + value) }
      // The last of these finishes the stream while other threads may still be delivering.
      children[index].send(completion: .finished)
    }
    #expect(checker.values.sorted() == Self.expected())
    #expect(checker.completions == 1)
    #expect(checker.problems.isEmpty)
  }

  @Test func limitedThenUnlimited_noValueBeyondDemand() {
    let checker = DemandChecker(initialDemand: .max(5), perValue: .max(1))
    let children = subscribeSubjects(checker)
    let sent = Atomic<Int>(0)
    DispatchQueue.concurrentPerform(iterations: Self.threads + 1) { index in
      guard index < Self.threads else {
        for round in 0..<200 { checker.request(.max(round % 3 + 1)) }
        checker.request(.unlimited)
        return
      }
      for value in 0..<Self.perThread {
        children[index].send(index * 100_000 + value)
        sent.add(1, ordering: .relaxed)
      }
    }
    // A subject drops a value its subscriber has no demand for, so some are missing here; none
    // beyond demand and none twice.
    let values = checker.values
    #expect(Set(values).count == values.count)
    let sentCount = sent.load(ordering: .relaxed)
    #expect(values.count <= sentCount)
    #expect(checker.problems.isEmpty)
    // Unlimited now. A `request(.unlimited)` made while a value was being delivered doesn't
    // reach the children (as Combine); one made now, with nothing delivering, reaches them all.
    checker.request(.unlimited)
    for (index, child) in children.enumerated() { child.send(index * 100_000 + 99_999) }
    let after = checker.values
    #expect(after.count == values.count + Self.threads)
    let lastValues = Set((0..<Self.threads).map { $0 * 100_000 + 99_999 })
    #expect(Set(after.suffix(Self.threads)) == lastValues)
    for child in children { child.send(completion: .finished) }
    #expect(checker.completions == 1)
    #expect(checker.problems.isEmpty)
  }

  @Test func cancelRacingSends_nothingAfterCancel() {
    for _ in 0..<20 {
      let checker = DemandChecker(initialDemand: .unlimited)
      let children = subscribeSubjects(checker)
      let cancelled = Atomic<Bool>(false)
      DispatchQueue.concurrentPerform(iterations: Self.threads + 1) { index in
        guard index < Self.threads else {
          for _ in 0..<50 { checker.request(.unlimited) }
          checker.cancel()
          cancelled.store(true, ordering: .releasing)
          return
        }
        for value in 0..<500 { children[index].send(index * 100_000 + value) }
      }
      let didCancel = cancelled.load(ordering: .acquiring)
      #expect(didCancel)
      let count = checker.values.count
      // Each value came once, in each child's order.
      for thread in 0..<Self.threads {
        let own = checker.values.filter { $0 / 100_000 == thread }
        #expect(own == own.sorted())
      }
      for child in children {
        child.send(-1)
        child.send(completion: .finished)
      }
      #expect(checker.values.count == count)
      #expect(!checker.values.contains(-1))
      #expect(checker.completions == 0)
      #expect(checker.problems.isEmpty)
    }
  }

  @Test func valuesQueuedBehindADelivery_allArriveInEachChildsOrder() {
    // The subscriber is slow enough that other threads' values queue behind its delivery.
    let checker = DemandChecker(initialDemand: .unlimited, spin: 200)
    let children = subscribeSubjects(checker)
    DispatchQueue.concurrentPerform(iterations: Self.threads) { index in
      for value in 0..<1_000 { children[index].send(index * 100_000 + value) }
      children[index].send(completion: .finished)
    }
    let values = checker.values
    #expect(values.sorted() == Self.expected(1_000))
    for thread in 0..<Self.threads {
      let own = values.filter { $0 / 100_000 == thread }
      #expect(own == own.sorted())
    }
    #expect(checker.completions == 1)
    #expect(checker.problems.isEmpty)
  }
}

/// Records values and notes an overlapping call, a value beyond the demand it asked for, or an
/// event after the completion.
// Sendable: the state is guarded by `lock`; nothing is called out under it, except the request
// and cancel that the demand count must see first (they don't call back into this lock).
final class DemandChecker: Subscriber, @unchecked Sendable {
  typealias Input = Int
  typealias Failure = Never

  private let lock = Lock()
  private var inside = false
  private var received: [Int] = []
  private var demand = Subscribers.Demand.none
  private var ended = false
  private var completionCount = 0
  private var found: [String] = []
  private var stored: (any Subscription)?
  private let initialDemand: Subscribers.Demand
  private let perValue: Subscribers.Demand
  private let spin: Int

  init(initialDemand: Subscribers.Demand, perValue: Subscribers.Demand = .none, spin: Int = 0) {
    self.initialDemand = initialDemand
    self.perValue = perValue
    self.spin = spin
  }

  var values: [Int] { lock.withLock { received } }
  var completions: Int { lock.withLock { completionCount } }
  var problems: [String] { lock.withLock { found } }

  /// Counts the demand first, then asks for it.
  func request(_ more: Subscribers.Demand) {
    let subscription = lock.withLock { () -> (any Subscription)? in
      guard stored != nil else { return nil }
      demand += more
      return stored
    }
    subscription?.request(more)
  }

  /// Cancels. (A value another thread is delivering at that moment may still arrive: the
  /// tests check that nothing comes once the senders are done.)
  func cancel() {
    let subscription = lock.withLock { stored }
    subscription?.cancel()
  }

  func receive(subscription: any Subscription) {
    lock.withLock {
      stored = subscription
      demand = initialDemand
    }
    subscription.request(initialDemand)
  }

  func receive(_ input: Int) -> Subscribers.Demand {
    lock.withLock {
      if inside { found.append("overlapping value \(input)") }
      if ended { found.append("value \(input) after the end") }
      if demand == .none { found.append("value \(input) beyond demand") } else { demand -= 1 }
      demand += perValue
      inside = true
      received.append(input)
    }
    var spun = 0
    for step in 0..<spin { spun &+= step }
    lock.withLock { inside = false }
    return spun < 0 ? .none : perValue
  }

  func receive(completion: Subscribers.Completion<Never>) {
    let released = lock.withLock { () -> (any Subscription)? in
      if inside { found.append("overlapping completion") }
      if ended { found.append("completion after the end") }
      ended = true
      completionCount += 1
      return stored.take()
    }
    _ = released
  }
}
