import StreamCore

/// The value, the delivery queue and the subject behind ``Variable``, ``Unique``, ``Property`` and
/// ``Published``.
///
/// Accepted values are delivered in acceptance order, one at a time, by one thread: a value
/// accepted while a delivery is under way (re-entrantly or from another thread) is queued and
/// delivered by the thread already delivering, right after. `latest` is the last value accepted;
/// `settled` is the last one that has reached every subscriber (what `@Published` reads, so that
/// subscribers see a new value before the property does).
///
/// ```
/// idle --admit(v)--> delivering      (this thread sends v: willChange, then the subject)
/// delivering --admit(v)--> delivering (v queued; the delivering thread sends it next)
/// delivering --queue empty--> idle
/// ```
// Sendable: every mutable property is in `state`, guarded by `lock`; the subject, the
// will-change publisher and released values are touched only after the lock is released.
final class ValueCell<Value>: @unchecked Sendable {
  private struct State {
    var latest: Value
    var settled: Value
    /// Counts accepted values, so an optimistic `modify` can tell whether it raced.
    var version: UInt64 = 0
    /// Values waiting for the delivering thread, newest last.
    var inbox: [Value] = []
    /// `inbox` reversed, so the next value is popped from the end.
    var outbox: [Value] = []
    var isDelivering = false
    /// The owner's `objectWillChange`, sent before each value (``Published`` only).
    var willChange: ObservableObjectPublisher?
    /// Set once every `@Published` property of the owner has `willChange`.
    var willChangeIsShared = false
    /// Subscriptions that live as long as this cell: `assign(to:)`, `bind(to:)`, `map`.
    var retained: [any Cancellable] = []
  }

  private enum Admission {
    case deliver(ObservableObjectPublisher?, released: Value)
    case queued(released: Value)
    case stale
  }

  /// Publishes the values, in the order they were accepted.
  let subject: CurrentValueSubject<Value, Never>
  private let lock = Lock()
  private var state: State

  init(_ value: Value) {
    subject = CurrentValueSubject(value)
    state = State(latest: value, settled: value)
  }

  deinit {
    for subscription in state.retained {
      subscription.cancel()
    }
  }

  /// The last value accepted.
  var latest: Value {
    lock.withLock { state.latest }
  }

  /// The last value that has reached every subscriber.
  var settled: Value {
    lock.withLock { state.settled }
  }

  /// Accepts `value` and delivers it, or queues it behind the delivery under way.
  func set(_ value: Value) {
    let admission = lock.withLock { admit(value) }
    if case .deliver(let willChange, _) = admission {
      deliver(value, willChange)
    }
  }

  /// Applies `body` to the latest value and accepts the result unless `isDuplicate` says it
  /// equals the value it was computed from; retries if another value was accepted meanwhile.
  func modify(
    _ body: (inout Value) throws -> Void,
    unless isDuplicate: ((Value, Value) -> Bool)?
  ) rethrows {
    while true {
      let (current, version) = lock.withLock { (state.latest, state.version) }
      var next = current
      try body(&next)
      if let isDuplicate, isDuplicate(current, next) { return }
      let admission = lock.withLock { state.version == version ? admit(next) : .stale }
      switch admission {
      case .stale: continue
      case .queued: return
      case .deliver(let willChange, _):
        deliver(next, willChange)
        return
      }
    }
  }

  /// Sends `.finished` to the subscribers; later values are kept but not sent.
  func finish() {
    subject.send(completion: .finished)
  }

  /// Keeps `subscription` until this cell is deinitialised, then cancels it.
  func retain(_ subscription: any Cancellable) {
    lock.withLock { state.retained.append(subscription) }
  }

  /// Makes `candidate` this cell's will-change publisher unless it already has one.
  ///
  /// - Returns: The publisher the cell now has.
  func installWillChange(_ candidate: ObservableObjectPublisher) -> ObservableObjectPublisher {
    lock.withLock {
      if let installed = state.willChange { return installed }
      state.willChange = candidate
      return candidate
    }
  }

  /// The will-change publisher, once every `@Published` property of the owner shares it.
  var sharedWillChange: ObservableObjectPublisher? {
    lock.withLock { state.willChangeIsShared ? state.willChange : nil }
  }

  /// Records that every `@Published` property of the owner has this cell's will-change publisher.
  func markWillChangeShared() {
    lock.withLock { state.willChangeIsShared = true }
  }

  /// Called with the lock held. The replaced value is handed out to be released after it.
  private func admit(_ value: Value) -> Admission {
    let released = state.latest
    state.latest = value
    state.version &+= 1
    if state.isDelivering {
      state.inbox.append(value)
      return .queued(released: released)
    }
    state.isDelivering = true
    return .deliver(state.willChange, released: released)
  }

  /// Delivers `first`, then whatever other threads or subscribers queued meanwhile.
  private func deliver(_ first: Value, _ firstWillChange: ObservableObjectPublisher?) {
    var value = first
    var willChange = firstWillChange
    while true {
      willChange?.send()
      subject.send(value)
      let step = lock.withLock { () -> (next: (Value, ObservableObjectPublisher?)?, Value) in
        let released = state.settled
        state.settled = value
        if state.outbox.isEmpty {
          guard !state.inbox.isEmpty else {
            state.isDelivering = false
            return (nil, released)
          }
          state.outbox = state.inbox.reversed()
          state.inbox.removeAll(keepingCapacity: true)
        }
        return ((state.outbox.removeLast(), state.willChange), released)
      }
      guard let next = step.next else { return }
      (value, willChange) = next
    }
  }
}
