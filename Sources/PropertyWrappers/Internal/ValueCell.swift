public import StreamCore

/// The value, the delivery queue and the subject behind the seed libraries' value holders
/// (Snail's `Variable` and `Unique`, SwiftySignals' `Property`); `@Published` has storage of its
/// own with Combine's order (`PublishedStorage`).
///
/// Accepted values are delivered in acceptance order, one at a time, by one thread: a value
/// accepted while a delivery is under way (re-entrantly or from another thread) is queued and
/// delivered by the thread already delivering, right after. `latest` is the last value accepted;
/// `settled` is the last one that has reached every subscriber.
///
/// The decisions are ``ValueCellState``'s transitions, made under `lock`; the thread whose
/// admission claims the state's `SerialDrain` delivers, with `SerialDrain.run`.
// Sendable: every mutable property is in `state`, guarded by `lock`; the subject and released
// values are touched only after the lock is released.
@usableFromInline
package final class ValueCell<Value>: @unchecked Sendable {
  /// Publishes the values, in the order they were accepted.
  @usableFromInline
  package let subject: CurrentValueSubject<Value, Never>
  @usableFromInline
  package let lock = Lock()
  @usableFromInline
  @exclusivity(unchecked) var state: ValueCellState<Value>

  /// - Parameter value: The initial value.
  package init(_ value: Value) {
    subject = CurrentValueSubject(value)
    state = ValueCellState(value)
  }

  deinit {
    for subscription in state.retained {
      subscription.cancel()
    }
  }

  /// The last value accepted.
  package var latest: Value {
    lock.withLock { state.latest }
  }

  /// The last value that has reached every subscriber.
  @inlinable
  package var settled: Value {
    lock.withLock { state.settled }
  }

  /// Accepts `value` and delivers it, or queues it behind the delivery under way.
  @inlinable
  package func set(_ value: Value) {
    let admission = lock.withLock { state.admit(value) }
    if case .deliver(let first, _) = admission {
      deliver(first)
    }
  }  // the replaced value is released here, after the lock

  /// Applies `body` to the latest value and accepts the result unless `isDuplicate` says it
  /// equals the value it was computed from; retries if another value was accepted meanwhile.
  package func modify(
    _ body: (inout Value) throws -> Void,
    unless isDuplicate: ((Value, Value) -> Bool)?
  ) rethrows {
    while true {
      let snapshot = lock.withLock { state.snapshot }
      var next = snapshot.value
      try body(&next)
      if let isDuplicate, isDuplicate(snapshot.value, next) { return }
      let admission = lock.withLock { state.admit(next, ifVersion: snapshot.version) }
      switch admission {
      case .stale: continue
      case .queued: return
      case .deliver(let first, _):
        deliver(first)
        return
      }
    }
  }

  /// Sends `.finished` to the subscribers; later values are kept but not sent.
  package func finish() {
    subject.send(completion: .finished)
  }

  /// Keeps `subscription` until this cell is deinitialised, then cancels it.
  package func retain(_ subscription: any Cancellable) {
    lock.withLock { state.retained.append(subscription) }
  }

  /// Delivers `first`, then whatever other threads or subscribers queued meanwhile; runs on the
  /// thread whose admission claimed the drain.
  @inlinable
  func deliver(_ first: ValueCellState<Value>.Delivery) {
    // The value delivered last; `nextDelivery(settling:)` swaps it with the settled value it
    // replaces, which is released here, outside the lock, when the next delivery overwrites it.
    var delivered: Value? = first.value
    subject.send(first.value)
    SerialDrain.run(lock) {
      state.nextDelivery(settling: &delivered)
    } perform: { delivery in
      subject.send(delivery.value)
      delivered = delivery.value
      return true
    }
  }
}

/// The state of a ``ValueCell``, as data: each transition runs under the cell's lock and returns
/// what to do after it.
///
/// ```
/// idle --admit(v)--> delivering       (the admitting thread claims the drain and sends v)
/// delivering --admit(v)--> delivering (v is queued; the delivering thread sends it next)
/// delivering --nextDelivery, queue empty--> idle (the drain is released)
/// ```
@usableFromInline
struct ValueCellState<Value> {
  /// The last value accepted.
  @usableFromInline
  var latest: Value
  /// The last value that has reached every subscriber.
  @usableFromInline
  var settled: Value
  /// Counts accepted values, so an optimistic `modify` can tell whether it raced.
  @usableFromInline
  var version: UInt64 = 0
  /// Values accepted while a delivery was under way, oldest first.
  @usableFromInline
  var queue = RingBuffer<Value>()
  /// Claimed by the thread that delivers.
  @usableFromInline
  var drain = SerialDrain()
  /// Subscriptions that live as long as the cell: `assign(to:)`, `bind(to:)`, `map`.
  @usableFromInline
  var retained: [any Cancellable] = []

  /// The latest value and its version, read together.
  struct Snapshot {
    /// The latest value.
    let value: Value
    /// ``ValueCellState/version`` when it was read.
    let version: UInt64
  }

  /// One value to send to the subject, after the lock.
  @usableFromInline
  struct Delivery {
    /// The value.
    @usableFromInline
    let value: Value

    @inlinable
    init(value: Value) {
      self.value = value
    }
  }

  /// What accepting a value decided.
  @usableFromInline
  enum Admission {
    /// The caller claimed the drain: it sends this delivery, then runs the drain. `released` is
    /// the replaced latest value.
    case deliver(Delivery, released: Value)
    /// Another thread is delivering and will send the value; `released` is the replaced one.
    case queued(released: Value)
    /// Another value was accepted since the snapshot; nothing changed.
    case stale
  }

  /// A cell holding `value`, with nothing to deliver.
  init(_ value: Value) {
    latest = value
    settled = value
  }

  /// The latest value and its version.
  var snapshot: Snapshot { Snapshot(value: latest, version: version) }

  /// Accepts `value`: it becomes the latest, and goes out now (the caller claimed the drain) or
  /// after the delivery under way.
  @inlinable
  mutating func admit(_ value: Value) -> Admission {
    var released = value
    swap(&released, &latest)
    version &+= 1
    guard drain.claim() else {
      queue.append(value)
      return .queued(released: released)
    }
    return .deliver(Delivery(value: value), released: released)
  }

  /// Accepts `value` if no other value was accepted since `version` was read; otherwise `.stale`.
  mutating func admit(_ value: Value, ifVersion expected: UInt64) -> Admission {
    guard version == expected else { return .stale }
    return admit(value)
  }

  /// The drain's next step. `delivered`, the value the drain sent last, becomes the settled
  /// value, and `delivered` then holds the settled value it replaced, for the caller to release
  /// after the lock. Returns the next queued value, or `nil` after releasing the drain.
  @inlinable
  mutating func nextDelivery(settling delivered: inout Value?) -> Delivery? {
    if var value = delivered.take() {
      swap(&value, &settled)
      delivered = value
    }
    guard let next = queue.popFirst() else {
      drain.release()
      return nil
    }
    return Delivery(value: next)
  }
}
