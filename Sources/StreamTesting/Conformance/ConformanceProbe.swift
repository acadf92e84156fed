import Dispatch
import StreamCore

/// The subscriber the conformance kit attaches to the publisher under test.
///
/// It counts what it receives rather than storing it, tracks the demand it has granted, and
/// notes every break of the subscriber contract as a violation: a value beyond the demand, a
/// second subscription (cancelled at once), anything before the subscription, after the
/// completion or (when `strictCancel`) after its own `cancel()` began, calls from two threads at
/// once, and calls nested more than ``maxNesting`` deep on one thread.
///
/// Demand is added to ``ProbeState/outstanding`` before the probe calls `request(_:)`, so a
/// value the call delivers at once is already covered. After the completion or `cancel()` the
/// probe lets go of the subscription (unless `keepsSubscription`), so a release check sees only what the
/// publisher still holds.
///
/// > Thread safety: Every method may be called from any thread. The subscription is called with
/// > no lock held, so it may call back into the probe.
// Sendable: all mutable state is in `state`, guarded by `lock`; the subscription is called
// outside the lock.
final class ConformanceProbe<Input, Failure: Error>: Subscriber, @unchecked Sendable {
  /// Nesting deeper than this on one thread counts as recursion.
  static var maxNesting: Int { 32 }

  /// Signalled after each call into the probe while a test waits (see ``beginWaiting()``).
  let progress = DispatchSemaphore(value: 0)
  /// Signalled when the probe is deinitialised.
  let released = ReleaseSignal()

  /// Names the probe in messages, such as `"second subscription"`; empty for the main one.
  let label: String

  private let lock = Lock()
  private var state = ProbeState()
  private let strictCancel: Bool
  private let keepsSubscription: Bool
  private let action: ProbeValueAction

  init(
    label: String = "",
    action: ProbeValueAction = .nothing,
    strictCancel: Bool = true,
    keepsSubscription: Bool = false
  ) {
    self.label = label
    self.action = action
    self.strictCancel = strictCancel
    self.keepsSubscription = keepsSubscription
  }

  deinit {
    released.signal()
  }

  /// A copy of the probe's state.
  var snapshot: ProbeState {
    lock.withLock { state }
  }

  /// The subscription, while the probe holds it.
  var subscription: (any Subscription)? {
    lock.withLock { state.subscription ?? state.kept }
  }

  // MARK: Calls out

  /// Subscribes the probe to `publisher`.
  func subscribe<P: Publisher>(to publisher: P) where P.Output == Input, P.Failure == Failure {
    let me = beginOutbound()
    publisher.subscribe(self)
    endOutbound(me)
  }

  /// Grants `demand` and requests it from `subscription`, or from the probe's own one.
  func request(_ demand: Subscribers.Demand, via subscription: (any Subscription)? = nil) {
    let me = ThreadID.current.rawValue
    let target = lock.withLock { () -> (any Subscription)? in
      guard let target = subscription ?? state.subscription else { return nil }
      state.outstanding += demand
      state.granted += demand
      state.outbound.increment(me)
      return target
    }
    guard let target else { return }
    target.request(demand)
    endOutbound(me)
  }

  /// Cancels `subscription`, or the probe's own one, and lets go of the probe's own one.
  func cancel(via subscription: (any Subscription)? = nil) {
    let me = ThreadID.current.rawValue
    let (target, dropped) = lock.withLock { () -> ((any Subscription)?, (any Subscription)?) in
      state.cancelled = true
      state.outbound.increment(me)
      defer { state.subscription = nil }
      return (subscription ?? state.subscription, state.subscription)
    }
    target?.cancel()
    _ = dropped  // released here, outside the lock
    endOutbound(me)
  }

  private func beginOutbound() -> UInt {
    let me = ThreadID.current.rawValue
    lock.withLock { _ = state.outbound.increment(me) }
    return me
  }

  private func endOutbound(_ me: UInt) {
    lock.withLock {
      state.outbound.decrement(me)
    }
  }

  // MARK: Subscriber

  func receive(subscription: any Subscription) {
    let me = ThreadID.current.rawValue
    let (problems, extra) = lock.withLock { () -> ([String], (any Subscription)?) in
      var problems = enter(me, "receive(subscription:)")
      state.subscriptions += 1
      if state.subscriptions > 1 {
        problems.append("receive(subscription:) was called a second time")
        return (problems, subscription)
      }
      if state.isCompleted {
        problems.append("receive(subscription:) came after the completion")
      }
      if state.cancelled {
        return (problems, subscription)
      }
      state.subscription = subscription
      if keepsSubscription { state.kept = subscription }
      return (problems, nil)
    }
    record(problems)
    extra?.cancel()
    leave(me)
  }

  func receive(_ input: Input) -> Subscribers.Demand {
    let me = ThreadID.current.rawValue
    let decision = lock.withLock { () -> ProbeValueDecision in
      var problems = enter(me, "receive(_:)")
      state.values += 1
      let number = state.values
      var wrong: [String] = []
      if state.subscriptions == 0 {
        wrong.append("before receive(subscription:)")
      }
      if state.isCompleted {
        wrong.append("after the completion")
      }
      if state.cancelled && strictCancel {
        wrong.append("after cancel()")
      }
      if state.outstanding == .none {
        wrong.append("with no outstanding demand (\(state.granted) granted in total)")
      } else {
        state.outstanding -= 1
      }
      if !wrong.isEmpty {
        problems.append("came " + wrong.joined(separator: " and "))
      }
      if state.outbound.count(for: me) > 0 {
        state.synchronousValues += 1
      } else {
        state.asynchronousValues += 1
      }
      switch action {
      case .requestInside(let demand, let count)
      where number <= count && !state.recursionReported && !state.cancelled:
        state.outstanding += demand
        state.granted += demand
        state.outbound.increment(me)
        return ProbeValueDecision(
          problems: problems,
          step: .request(state.subscription, demand),
          number: number
        )
      case .cancelAt(let count) where number == count:
        return ProbeValueDecision(problems: problems, step: .cancel, number: number)
      default:
        return ProbeValueDecision(problems: problems, step: .nothing, number: number)
      }
    }
    if !decision.problems.isEmpty {
      let value = "value #\(decision.number) (\(describe(input)))"
      record(
        decision.problems.map { $0.hasPrefix("came ") ? "\(value) \($0)" : "\($0), at \(value)" }
      )
    }
    var returned = Subscribers.Demand.none
    switch decision.step {
    case .nothing:
      if case .returnDemand(let demand, let count) = action, decision.number <= count {
        returned = demand
      }
    case .request(let subscription, let demand):
      subscription?.request(demand)
      endOutbound(me)
    case .cancel:
      cancel()
    }
    leave(me, granting: returned)
    return returned
  }

  func receive(completion: Subscribers.Completion<Failure>) {
    let me = ThreadID.current.rawValue
    let received: ProbeCompletion
    switch completion {
    case .finished: received = .finished
    case .failure(let error): received = .failure(String(describing: error))
    }
    let text = "\(completion)"
    let (problems, dropped) = lock.withLock { () -> ([String], (any Subscription)?) in
      var problems = enter(me, "receive(completion:)")
      state.completions += 1
      if state.subscriptions == 0 {
        problems.append("the completion came before receive(subscription:)")
      }
      if state.completions > 1 {
        problems.append("completion #\(state.completions) (\(text)) came after \(state.summary)")
      } else {
        state.completion = received
      }
      if state.cancelled && strictCancel {
        problems.append("the completion (\(text)) came after cancel()")
      }
      defer { state.subscription = nil }
      return (problems, state.subscription)
    }
    record(problems)
    _ = dropped  // released here, outside the lock
    leave(me)
  }

  // MARK: Bookkeeping

  /// Notes a call into the probe; returns the problems it shows. Called with the lock held.
  private func enter(_ me: UInt, _ call: String) -> [String] {
    var problems: [String] = []
    state.events += 1
    if state.outbound.count(for: me) == 0 {
      state.asynchronousEvents += 1
    }
    if state.active.containsOther(than: me) {
      problems.append("\(call) was called while another thread was inside the subscriber")
    }
    let depth = state.active.increment(me)
    if depth > Self.maxNesting && !state.recursionReported {
      state.recursionReported = true
      problems.append(
        "\(call) was nested \(depth) calls deep on one thread: "
          + "request(_:) from inside receive(_:) recursed"
      )
    }
    return problems
  }

  private func leave(_ me: UInt, granting demand: Subscribers.Demand = .none) {
    let waited = lock.withLock { () -> Bool in
      state.outstanding += demand
      state.granted += demand
      state.active.decrement(me)
      return state.waiters > 0
    }
    if waited { progress.signal() }
  }

  /// Brackets a wait on ``progress``, so that calls into the probe signal it.
  func beginWaiting() {
    lock.withLock { state.waiters += 1 }
  }

  func endWaiting() {
    lock.withLock { state.waiters -= 1 }
  }

  private func record(_ problems: [String]) {
    guard !problems.isEmpty else { return }
    lock.withLock {
      for problem in problems {
        if state.violations.count < 3 {
          state.violations.append(problem)
        } else {
          state.omittedViolations += 1
        }
      }
    }
  }

  private func describe(_ input: Input) -> String {
    let text = String(describing: input)
    return text.count > 60 ? String(text.prefix(57)) + "..." : text
  }
}

/// Counts per thread, with room for one thread inline: the probe is usually called from one
/// thread at a time, and a dictionary on every call would make long runs slow.
struct ThreadCounts {
  private var thread: UInt = 0
  private var count = 0
  private var others: [UInt: Int] = [:]

  var isEmpty: Bool { count == 0 && others.isEmpty }

  func count(for me: UInt) -> Int {
    if count > 0 && thread == me { return count }
    return others.isEmpty ? 0 : others[me, default: 0]
  }

  func containsOther(than me: UInt) -> Bool {
    if count > 0 && thread != me { return true }
    return !others.isEmpty && others.keys.contains { $0 != me }
  }

  /// Adds one for `me`; returns the new count.
  @discardableResult
  mutating func increment(_ me: UInt) -> Int {
    if count > 0 && thread == me || count == 0 && others[me] == nil {
      thread = me
      count += 1
      return count
    }
    others[me, default: 0] += 1
    return others[me, default: 0]
  }

  mutating func decrement(_ me: UInt) {
    if count > 0 && thread == me {
      count -= 1
    } else if let value = others[me] {
      others[me] = value > 1 ? value - 1 : nil
    }
  }
}

/// A flag a probe raises when it is deinitialised.
final class ReleaseSignal: Sendable {
  private let semaphore = DispatchSemaphore(value: 0)

  func signal() {
    semaphore.signal()
  }

  /// Waits until the probe is released, or until `deadline`; returns whether it was released.
  func wait(until deadline: DispatchTime) -> Bool {
    guard semaphore.wait(timeout: deadline) == .success else { return false }
    semaphore.signal()  // later waits succeed too
    return true
  }
}

/// What the probe does when a value arrives.
enum ProbeValueAction {
  /// Returns `.none`.
  case nothing
  /// Returns `demand` from `receive(_:)` for the first `count` values.
  case returnDemand(Subscribers.Demand, count: Int)
  /// Calls `request(demand)` from inside `receive(_:)` for the first `count` values.
  case requestInside(Subscribers.Demand, count: Int)
  /// Calls `cancel()` from inside `receive(_:)` on value number `count`.
  case cancelAt(Int)
}

/// What `receive(_:)` does after its bookkeeping.
enum ProbeStep {
  case nothing
  case request((any Subscription)?, Subscribers.Demand)
  case cancel
}

/// What a probe has seen and granted; rules read a copy through ``ConformanceProbe/snapshot``.
struct ProbeState {
  var subscription: (any Subscription)?
  var kept: (any Subscription)?
  var subscriptions = 0
  var values = 0
  var completions = 0
  var completion: ProbeCompletion?
  /// Demand granted and not yet used.
  var outstanding = Subscribers.Demand.none
  /// Demand granted in total.
  var granted = Subscribers.Demand.none
  var cancelled = false
  /// Every call into the probe, for marks and progress.
  var events = 0
  var violations: [String] = []
  var omittedViolations = 0
  /// Calls into the probe under way, per thread.
  var active = ThreadCounts()
  /// The probe's own calls out (subscribe, request, cancel) under way, per thread.
  var outbound = ThreadCounts()
  /// Calls that arrived while no call out of the probe was under way on their thread.
  var asynchronousEvents = 0
  /// Values among `asynchronousEvents`.
  var asynchronousValues = 0
  /// Tests waiting on `progress`.
  var waiters = 0
  /// Values that arrived inside one of the probe's own calls out, on the same thread.
  var synchronousValues = 0
  var recursionReported = false

  var isCompleted: Bool { completions > 0 }
  var isIdle: Bool { active.isEmpty }

  /// `"2 values, no completion"`.
  var summary: String {
    let values = "\(self.values) value\(self.values == 1 ? "" : "s")"
    switch completion {
    case nil: return "\(values), no completion"
    case .finished?: return "\(values), then .finished"
    case .failure(let error)?: return "\(values), then .failure(\(error))"
    }
  }
}

/// What `receive(_:)` decided under the lock.
struct ProbeValueDecision {
  var problems: [String]
  var step: ProbeStep
  var number: Int
}

/// A completion the probe received, with the error described.
enum ProbeCompletion {
  case finished
  case failure(String)
}
