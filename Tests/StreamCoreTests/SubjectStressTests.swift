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
    /// Whether `receive(_:)` keeps each value in `values`.
    let records: Bool
    private let subscriptionLock = Lock()
    private var _subscription: (any Subscription)?
    private let valuesLock = Lock()
    private var _values: [Int] = []

    init(
      initialDemand: Subscribers.Demand,
      perValue: Subscribers.Demand = .none,
      records: Bool = false
    ) {
      self.initialDemand = initialDemand
      self.perValue = perValue
      self.records = records
    }

    /// The values received, in order, if `records` is set.
    var values: [Int] { valuesLock.withLock { _values } }

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
      if records { valuesLock.withLock { _values.append(input) } }
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

  /// Semaphore waits that give up after 30 seconds and count each that did, so that a broken
  /// hand-off fails its test instead of hanging it.
  final class Waits: Sendable {
    let timedOut = Atomic<Int>(0)

    func wait(_ semaphore: DispatchSemaphore) {
      if semaphore.wait(timeout: .now() + 30) == .timedOut {
        timedOut.add(1, ordering: .relaxed)
      }
    }
  }

  /// Values received, from any thread.
  final class ValueLog: @unchecked Sendable {
    // Sendable: `received` is guarded by `lock`.
    private let lock = Lock()
    private var received: [Int] = []

    func append(_ value: Int) { lock.withLock { received.append(value) } }

    var values: [Int] { lock.withLock { received } }
  }

  /// Something a subscriber's closure captures, to see when the subscriber is released.
  final class Marker: Sendable {}

  /// A weak reference to a ``Marker``.
  final class WeakMarker: @unchecked Sendable {
    // Sendable: written before the threads start, read after they have signalled.
    weak var marker: Marker?
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
    // One value at the start and one per request. Thread 0 sends right after each request, so
    // every unit of demand is used by the end, and none is exceeded: exactly one value each.
    let requested = checker.requested.load(ordering: .relaxed)
    #expect(requested == 1 + Self.perThread / 4)
    #expect(checker.received.load(ordering: .relaxed) == requested)
    #expect(checker.overlaps.load(ordering: .relaxed) == 0)
  }

  @Test func concurrentCurrentValueSets_lastValueArrives() {
    let subject = CurrentValueSubject<Int, Never>(-1)
    let checker = Checker(initialDemand: .max(1), perValue: .max(1), records: true)
    subject.subscribe(checker)
    concurrently { thread in
      for value in 0..<Self.perThread { subject.send(thread * Self.perThread + value) }
    }
    subject.value = 1_000_000
    #expect(subject.value == 1_000_000)
    #expect(checker.overlaps.load(ordering: .relaxed) == 0)
    // A value sent while another is being delivered may be replaced by a newer one, but the
    // subscriber gets the initial value first, the last value last and once, and each
    // thread's values in the order sent, none twice.
    let values = checker.values
    #expect(values.count == checker.received.load(ordering: .relaxed))
    #expect(values.first == -1)
    #expect(values.last == 1_000_000)
    #expect(values.filter { $0 == 1_000_000 }.count == 1)
    #expect(Set(values).count == values.count)
    for thread in 0..<Self.threads {
      let range = thread * Self.perThread..<(thread + 1) * Self.perThread
      let fromThread = values.filter { range.contains($0) }
      #expect(fromThread == fromThread.sorted())
    }
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
    final class Marker: Sendable {}
    final class WeakMarker: @unchecked Sendable {
      // Sendable: written by thread 0 only, read after `concurrently` returns.
      weak var marker: Marker?
    }
    let subject = PassthroughSubject<Int, Never>()
    let steady = Checker(initialDemand: .unlimited)
    subject.subscribe(steady)
    let markers = (0..<2_000).map { _ in WeakMarker() }
    concurrently { thread in
      if thread == 0 {
        for slot in markers {
          let marker = Marker()
          slot.marker = marker
          let token = subject.sink { _ in _ = marker }
          token.cancel()
        }
      } else {
        for value in 0..<Self.perThread { subject.send(value) }
      }
    }
    // Every cancelled sink was let go, and the subscriber that stayed got every value.
    #expect(markers.filter { $0.marker != nil }.count == 0)
    #expect(steady.received.load(ordering: .relaxed) == (Self.threads - 1) * Self.perThread)
    #expect(steady.overlaps.load(ordering: .relaxed) == 0)
    subject.send(completion: .finished)
    #expect(steady.completions.load(ordering: .relaxed) == 1)
    let late = Recorder<Int, Never>()
    subject.subscribe(late)
    #expect(late.completions == [.finished])
  }

  /// Subscribers with unlimited demand, cancelled while other threads deliver to them, are
  /// released once those deliveries have returned.
  @Test func unlimitedSubscribers_cancelledWhileOthersDeliver_areReleased() {
    final class Held: Subscriber, @unchecked Sendable {
      // Sendable: `subscription` is written in `receive(subscription:)`, before the subscriber
      // is shared, and cleared by the one thread that cancels it.
      typealias Input = Int
      typealias Failure = Never
      var subscription: (any Subscription)?
      let received = Atomic<Int>(0)
      func receive(subscription: any Subscription) {
        self.subscription = subscription
        subscription.request(.unlimited)
      }
      func receive(_ input: Int) -> Subscribers.Demand {
        received.add(1, ordering: .relaxed)
        return .none
      }
      func receive(completion: Subscribers.Completion<Never>) {}
    }
    final class WeakHeld: @unchecked Sendable {
      // Sendable: written by thread 0 only, read after `concurrently` returns.
      weak var held: Held?
      var received = 0
    }
    let subject = PassthroughSubject<Int, Never>()
    let slots = (0..<1_000).map { _ in WeakHeld() }
    concurrently { thread in
      if thread == 0 {
        for slot in slots {
          let held = Held()
          slot.held = held
          subject.subscribe(held)  // the subscriber holds its subscription, and it holds back
          subject.send(-1)
          held.subscription?.cancel()
          held.subscription = nil
          subject.send(-2)
          slot.received = held.received.load(ordering: .relaxed)
        }
      } else {
        for value in 0..<Self.perThread { subject.send(value) }
      }
    }
    #expect(slots.filter { $0.held != nil }.count == 0)
    // Values reached them while they lived (a queued one may be dropped by the cancel).
    #expect(slots.map(\.received).reduce(0, +) > 0)
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

  // The same guarantees, checked through `sink`'s closures.

  /// `sink` on `subject`, whose closures report to `checker`.
  private func sink(
    _ subject: PassthroughSubject<Int, Never>,
    into checker: Checker
  )
    -> AnyCancellable
  {
    subject.sink(
      receiveCompletion: { checker.receive(completion: $0) },
      receiveValue: { _ = checker.receive($0) }
    )
  }

  /// The subject's own `sink` on `subject`, whose closures report to `checker`.
  private func sink(
    _ subject: CurrentValueSubject<Int, Never>,
    into checker: Checker
  )
    -> AnyCancellable
  {
    subject.sink(
      receiveCompletion: { checker.receive(completion: $0) },
      receiveValue: { _ = checker.receive($0) }
    )
  }

  @Test func sinks_concurrentSends_nothingLostOrOverlappingAndInOrder() {
    let subject = PassthroughSubject<Int, Never>()
    let checkers = (0..<2).map { _ in Checker(initialDemand: .unlimited, records: true) }
    let tokens = checkers.map { sink(subject, into: $0) }
    concurrently { thread in
      for value in 0..<Self.perThread { subject.send(thread * Self.perThread + value) }
    }
    subject.send(completion: .finished)
    for checker in checkers {
      #expect(checker.received.load(ordering: .relaxed) == Self.threads * Self.perThread)
      #expect(checker.overlaps.load(ordering: .relaxed) == 0)
      #expect(checker.completions.load(ordering: .relaxed) == 1)
      let values = checker.values
      #expect(Set(values).count == Self.threads * Self.perThread)
      for thread in 0..<Self.threads {
        let range = thread * Self.perThread..<(thread + 1) * Self.perThread
        let fromThread = values.filter { range.contains($0) }
        #expect(fromThread == Array(range))
      }
    }
    withExtendedLifetime(tokens) {}
  }

  @Test func sinks_reentrantSendsWhileOtherThreadsSend_nothingLost() {
    let subject = PassthroughSubject<Int, Never>()
    let checker = Checker(initialDemand: .unlimited)
    let echoes = Atomic<Int>(0)
    // Every tenth value sent from outside is echoed from inside the sink, into the same subject.
    let token = subject.sink { value in
      _ = checker.receive(value)
      if value >= 0, value % 10 == 0 {
        echoes.add(1, ordering: .relaxed)
        subject.send(-1 - value)
      }
    }
    concurrently { thread in
      for value in 0..<Self.perThread { subject.send(thread * Self.perThread + value) }
    }
    let sent = Self.threads * Self.perThread
    #expect(echoes.load(ordering: .relaxed) == sent / 10)
    #expect(checker.received.load(ordering: .relaxed) == sent + sent / 10)
    #expect(checker.overlaps.load(ordering: .relaxed) == 0)
    withExtendedLifetime(token) {}
  }

  @Test func sinks_reentrantSend_isDeliveredAtOnceInsideTheDelivery() {
    let subject = PassthroughSubject<Int, Never>()
    var log: [String] = []
    let token = subject.sink { value in
      log.append("in \(value)")
      if value == 1 { subject.send(2) }
      log.append("out \(value)")
    }
    subject.send(1)
    subject.send(3)
    #expect(log == ["in 1", "in 2", "out 2", "out 1", "in 3", "out 3"])
    withExtendedLifetime(token) {}
  }

  @Test func sinks_concurrentCancelWhileSending_stopsForGood() {
    let subject = PassthroughSubject<Int, Never>()
    let checkers = (0..<8).map { _ in Checker(initialDemand: .unlimited) }
    let tokens = checkers.map { sink(subject, into: $0) }
    concurrently { thread in
      for value in 0..<Self.perThread {
        subject.send(value)
        if thread == 0, value % 500 == 0 {
          tokens[value / 500 % tokens.count].cancel()
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

  @Test func sinks_concurrentCompletionAndSends_exactlyOneCompletionLast() {
    for _ in 0..<50 {
      let subject = PassthroughSubject<Int, Never>()
      let checker = Checker(initialDemand: .unlimited)
      let afterCompletion = Atomic<Int>(0)
      let token = subject.sink(
        receiveCompletion: { checker.receive(completion: $0) },
        receiveValue: { value in
          if checker.completions.load(ordering: .relaxed) > 0 {
            afterCompletion.add(1, ordering: .relaxed)
          }
          _ = checker.receive(value)
        }
      )
      concurrently { thread in
        for value in 0..<100 {
          subject.send(value)
          if value == 50 { subject.send(completion: .finished) }
        }
      }
      #expect(checker.completions.load(ordering: .relaxed) == 1)
      #expect(checker.overlaps.load(ordering: .relaxed) == 0)
      #expect(afterCompletion.load(ordering: .relaxed) == 0)
      withExtendedLifetime(token) {}
    }
  }

  @Test func sinks_concurrentCurrentValueSets_lastValueArrivesOnce() {
    let subject = CurrentValueSubject<Int, Never>(-1)
    let checker = Checker(initialDemand: .unlimited, records: true)
    let token = sink(subject, into: checker)
    concurrently { thread in
      for value in 0..<Self.perThread { subject.send(thread * Self.perThread + value) }
    }
    subject.value = 1_000_000
    let values = checker.values
    #expect(checker.overlaps.load(ordering: .relaxed) == 0)
    // Unlimited demand: nothing is replaced, every value arrives once, each thread's in order.
    #expect(values.count == 1 + Self.threads * Self.perThread + 1)
    #expect(values.first == -1)
    #expect(values.last == 1_000_000)
    #expect(Set(values).count == values.count)
    for thread in 0..<Self.threads {
      let range = thread * Self.perThread..<(thread + 1) * Self.perThread
      #expect(values.filter { range.contains($0) } == Array(range))
    }
    withExtendedLifetime(token) {}
  }

  /// Values keep flowing, in full, while another thread reflects the subscription (the mirror
  /// reads the subscriber under the lock that a send takes it under).
  @Test func mirrorReadWhileSending_noRaceAndNothingLost() {
    let subject = PassthroughSubject<Int, Never>()
    let checker = Checker(initialDemand: .unlimited)
    subject.subscribe(checker)
    #expect(checker.subscription != nil)
    let reads = Atomic<Int>(0)
    let sending = Atomic<Bool>(true)
    DispatchQueue.concurrentPerform(iterations: 2) { thread in
      if thread == 0 {
        for value in 0..<Self.perThread * 4 { subject.send(value) }
        sending.store(false, ordering: .releasing)
      } else {
        // Reads for as long as the other thread sends (at least once).
        repeat {
          guard let subscription = checker.subscription else { return }
          let mirror = Mirror(reflecting: subscription)
          if mirror.children.contains(where: { $0.label == "downstream" }) {
            reads.add(1, ordering: .relaxed)
          }
        } while sending.load(ordering: .acquiring)
      }
    }
    subject.send(completion: .finished)
    #expect(reads.load(ordering: .relaxed) >= 1)
    #expect(checker.received.load(ordering: .relaxed) == Self.perThread * 4)
    #expect(checker.overlaps.load(ordering: .relaxed) == 0)
  }

  /// A subscriber cancelled from another thread while the delivering thread is inside it stays
  /// until that delivery has returned (the delivering thread holds it for the call), then goes;
  /// a value sent after the cancel returned doesn't reach it.
  @Test func subscriberCancelledFromAnotherThreadWhileInsideIt_staysUntilTheDeliveryReturns() {
    final class Blocking: Subscriber, @unchecked Sendable {
      // Sendable: `subscription` is written in `receive(subscription:)`, before the subscriber
      // is shared, and read by this test after that.
      typealias Input = Int
      typealias Failure = Never
      var subscription: (any Subscription)?
      let inside = DispatchSemaphore(value: 0)
      let go = DispatchSemaphore(value: 0)
      let waits: Waits
      let received: ValueLog
      init(waits: Waits, received: ValueLog) {
        self.waits = waits
        self.received = received
      }
      func receive(subscription: any Subscription) {
        self.subscription = subscription
        subscription.request(.unlimited)
      }
      func receive(_ input: Int) -> Subscribers.Demand {
        let (inside, go, waits) = (self.inside, self.go, self.waits)
        received.append(input)
        inside.signal()
        waits.wait(go)
        return .none
      }
      func receive(completion: Subscribers.Completion<Never>) {}
    }
    final class WeakBlocking: @unchecked Sendable {
      // Sendable: written before the delivering thread starts, read after it has signalled.
      weak var subscriber: Blocking?
    }
    let subject = PassthroughSubject<Int, Never>()
    let waits = Waits()
    let weak = WeakBlocking()
    let received = ValueLog()
    let returned = DispatchSemaphore(value: 0)
    var subscription: (any Subscription)?
    let inside: DispatchSemaphore
    let go: DispatchSemaphore
    do {
      let subscriber = Blocking(waits: waits, received: received)
      weak.subscriber = subscriber
      subject.subscribe(subscriber)
      subscription = subscriber.subscription
      (inside, go) = (subscriber.inside, subscriber.go)
    }
    DispatchQueue(label: "delivering").async {
      subject.send(1)
      returned.signal()
    }
    waits.wait(inside)
    subscription?.cancel()
    subscription = nil
    subject.send(2)  // after the cancel: reaches no one
    #expect(weak.subscriber != nil)  // the delivering thread is inside it
    go.signal()
    waits.wait(returned)
    #expect(weak.subscriber == nil)
    #expect(received.values == [1])
    #expect(waits.timedOut.load(ordering: .relaxed) == 0)
  }
}
