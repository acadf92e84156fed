import Dispatch
import StreamCore

// Publishers for ConformanceKitTests: an adapter that feeds a subject from a background queue,
// a correct asynchronous publisher, and deliberately broken ones.

/// The error every test in this target fails with.
struct TestError: Error, Equatable {}

// MARK: - Subjects fed on demand

/// Feeds a subject from a background queue as its subscribers request values, so that the kit
/// sees a subject whose values arrive after subscription, on another thread. Each subscriber is
/// attached to the one shared subject; only the feeding is per subscriber.
///
/// With `failure`, it sends that failure (from the queue) instead of values.
struct KitFedSubject<S: Subject & Sendable>: Publisher where S.Output == Int {
  typealias Output = Int
  typealias Failure = S.Failure

  let subject: S
  let failure: S.Failure?
  private let queue = DispatchQueue(label: "KitFedSubject")
  private let counter = Counter()

  init(_ subject: S, failure: S.Failure? = nil) {
    self.subject = subject
    self.failure = failure
  }

  func receive<Downstream: Subscriber>(subscriber: Downstream)
  where Downstream.Input == Int, Downstream.Failure == Failure {
    subject.subscribe(Feeder(downstream: subscriber, feed: self))
    if let failure {
      let subject = subject
      queue.async { subject.send(completion: .failure(failure)) }
    }
  }

  /// Sends `demand` values (1,000 for unlimited) from the queue while `isActive` holds.
  func supply(_ demand: Subscribers.Demand, isActive: @escaping @Sendable () -> Bool) {
    guard failure == nil else { return }
    let count = demand.max ?? 1_000
    queue.async { [subject, counter] in
      for _ in 0..<count {
        guard isActive() else { return }
        subject.send(counter.next())
      }
    }
  }

  private final class Counter: Sendable {
    private let value = LockedState(0)

    func next() -> Int {
      value.withLock { value in
        defer { value += 1 }
        return value
      }
    }
  }

  // Sendable: `downstream` and `upstream` are guarded by `lock`; calls out happen after it.
  private final class Feeder<Downstream: Subscriber>: Subscriber, Subscription,
    @unchecked Sendable
  where Downstream.Input == Int, Downstream.Failure == Failure {
    private let lock = Lock()
    private var downstream: Downstream?
    private var upstream: (any Subscription)?
    private let feed: KitFedSubject

    init(downstream: Downstream, feed: KitFedSubject) {
      self.downstream = downstream
      self.feed = feed
    }

    func receive(subscription: any Subscription) {
      let downstream = lock.withLock {
        upstream = subscription
        return self.downstream
      }
      downstream?.receive(subscription: self)
    }

    func receive(_ input: Int) -> Subscribers.Demand {
      let downstream = lock.withLock { self.downstream }
      let more = downstream?.receive(input) ?? .none
      if more > .none { supply(more) }
      return more
    }

    func receive(completion: Subscribers.Completion<Failure>) {
      let (downstream, upstream) = lock.withLock {
        defer {
          self.downstream = nil
          self.upstream = nil
        }
        return (self.downstream, self.upstream)
      }
      _ = upstream
      downstream?.receive(completion: completion)
    }

    func request(_ demand: Subscribers.Demand) {
      let upstream = lock.withLock { self.upstream }
      upstream?.request(demand)
      supply(demand)
    }

    /// Has the feed send values for `demand`, while this subscription is active.
    private func supply(_ demand: Subscribers.Demand) {
      feed.supply(demand) { [weak self] in
        guard let self else { return false }
        return lock.withLock { self.upstream != nil }
      }
    }

    func cancel() {
      let (downstream, upstream) = lock.withLock {
        defer {
          self.downstream = nil
          self.upstream = nil
        }
        return (self.downstream, self.upstream)
      }
      _ = downstream
      upstream?.cancel()
    }
  }
}

// MARK: - A correct asynchronous publisher

/// Sends `0..<count` on a serial queue of its own, as demand allows, then `.finished` or
/// `failure`. Correct, and asynchronous: values arrive after `request(_:)` has returned.
struct KitAsyncCounter: Publisher {
  typealias Output = Int
  typealias Failure = TestError

  let count: Int
  var failure: TestError?

  func receive<Downstream: Subscriber>(subscriber: Downstream)
  where Downstream.Input == Int, Downstream.Failure == TestError {
    subscriber.receive(
      subscription: Inner(downstream: subscriber, count: count, failure: failure)
    )
  }

  // Sendable: all mutable state is guarded by `lock`; the downstream is called after it, on
  // `queue`, by one drain at a time (`scheduled`).
  private final class Inner<Downstream: Subscriber>: Subscription, @unchecked Sendable
  where Downstream.Input == Int, Downstream.Failure == TestError {
    private enum Step {
      case send(Downstream, Int)
      case complete(Downstream)
      case stop
    }

    private let queue = DispatchQueue(label: "KitAsyncCounter")
    private let lock = Lock()
    private var downstream: Downstream?
    private var demand = Subscribers.Demand.none
    private var next = 0
    private var scheduled = false
    private let count: Int
    private let failure: TestError?

    init(downstream: Downstream, count: Int, failure: TestError?) {
      self.downstream = downstream
      self.count = count
      self.failure = failure
    }

    func request(_ demand: Subscribers.Demand) {
      let schedules = lock.withLock { () -> Bool in
        guard downstream != nil else { return false }
        self.demand += demand
        defer { scheduled = true }
        return !scheduled
      }
      if schedules {
        queue.async { self.drain() }
      }
    }

    private func drain() {
      var more = Subscribers.Demand.none
      while true {
        let step = lock.withLock { () -> Step in
          guard let downstream else { return .stop }
          demand += more
          if next == count {
            self.downstream = nil
            return .complete(downstream)
          }
          guard demand > .none else {
            scheduled = false
            return .stop
          }
          demand -= 1
          next += 1
          return .send(downstream, next - 1)
        }
        switch step {
        case .send(let downstream, let value):
          more = downstream.receive(value)
        case .complete(let downstream):
          downstream.receive(completion: failure.map { .failure($0) } ?? .finished)
          return
        case .stop:
          return
        }
      }
    }

    func cancel() {
      let released = lock.withLock {
        defer { downstream = nil }
        return downstream
      }
      _ = released
    }
  }
}

// MARK: - Broken publishers

/// Sends `0..<count` synchronously as demand allows, then `.finished`, except for one flaw.
struct KitBrokenCounter: Publisher {
  typealias Output = Int
  typealias Failure = Never

  enum Flaw {
    /// Sends every value on the first request, whatever the demand.
    case ignoresDemand
    /// `cancel()` does nothing.
    case sendsAfterCancel
    /// Sends `.finished` twice.
    case completesTwice
    /// Keeps every subscriber it was given, forever.
    case keepsSubscribers
    /// Delivers inside `request(_:)` even while already delivering, so `request` from inside
    /// `receive(_:)` recurses.
    case recurses
  }

  let count: Int
  let flaw: Flaw
  private let keeper = Keeper()

  init(count: Int, flaw: Flaw) {
    self.count = count
    self.flaw = flaw
  }

  func receive<Downstream: Subscriber>(subscriber: Downstream)
  where Downstream.Input == Int, Downstream.Failure == Never {
    if flaw == .keepsSubscribers {
      keeper.keep(subscriber)
    }
    subscriber.receive(subscription: Inner(downstream: subscriber, count: count, flaw: flaw))
  }

  // Sendable: `kept` is guarded by `lock`.
  private final class Keeper: @unchecked Sendable {
    private let lock = Lock()
    private var kept: [Any] = []

    func keep(_ subscriber: Any) {
      lock.withLock { kept.append(subscriber) }
    }
  }

  // Sendable: all mutable state is guarded by `lock`; the downstream is called after it.
  private final class Inner<Downstream: Subscriber>: Subscription, @unchecked Sendable
  where Downstream.Input == Int, Downstream.Failure == Never {
    private enum Step {
      case send(Downstream, Int)
      case complete(Downstream)
      case stop
    }

    private let lock = Lock()
    private var downstream: Downstream?
    private var demand = Subscribers.Demand.none
    private var next = 0
    private var draining = false
    private let count: Int
    private let flaw: Flaw

    init(downstream: Downstream, count: Int, flaw: Flaw) {
      self.downstream = downstream
      self.count = count
      self.flaw = flaw
    }

    func request(_ demand: Subscribers.Demand) {
      let starts = lock.withLock { () -> Bool in
        self.demand += flaw == .ignoresDemand ? .unlimited : demand
        if flaw == .recurses { return true }
        defer { draining = true }
        return !draining
      }
      if starts { drain() }
    }

    private func drain() {
      var more = Subscribers.Demand.none
      while true {
        let step = lock.withLock { () -> Step in
          demand += more
          guard let downstream else { return .stop }
          if next == count {
            self.downstream = nil
            return .complete(downstream)
          }
          guard demand > .none else {
            draining = false
            return .stop
          }
          demand -= 1
          next += 1
          return .send(downstream, next - 1)
        }
        switch step {
        case .send(let downstream, let value):
          more = downstream.receive(value)
        case .complete(let downstream):
          downstream.receive(completion: .finished)
          if flaw == .completesTwice { downstream.receive(completion: .finished) }
          return
        case .stop:
          return
        }
      }
    }

    func cancel() {
      guard flaw != .sendsAfterCancel else { return }
      let released = lock.withLock {
        defer { downstream = nil }
        return downstream
      }
      _ = released
    }
  }
}
