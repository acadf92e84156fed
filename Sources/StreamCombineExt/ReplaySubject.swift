import SignalOperators
public import StreamCore

/// A subject that replays its latest values, and then its completion, to each new subscriber.
///
/// ```swift
/// let replay = ReplaySubject<Int, Never>(bufferSize: 2)
/// replay.send(1)
/// replay.send(2)
/// replay.send(3)
/// let cancellable = replay.sink { print($0) }  // prints 2, 3, then each later value
/// ```
///
/// This is CombineExt's `ReplaySubject` (and Snail's `Replay`). A new subscriber first receives the last
/// `bufferSize` values, as its demand allows, then the completion if the subject has ended, or
/// else the live values. Demand is respected: a subscriber without demand keeps, like the
/// subject itself, at most the latest `bufferSize` values for later (the oldest is dropped when
/// a newer one arrives), so a subscriber with unlimited demand loses nothing and one with
/// `bufferSize == 0` behaves like a `PassthroughSubject` subscriber. The completion follows the
/// values kept for a subscriber. Each subscription describes itself as `"ReplaySubject"`.
///
/// > Thread safety: `send`, `subscribe`, `request` and `cancel` may be called from any thread.
/// > As with `PassthroughSubject`, a value is delivered on the thread that sent it and `send`
/// > returns once it was delivered or kept for each subscriber: a `send` from another thread
/// > while a subscriber is receiving waits for it, and one from inside the subscriber is
/// > delivered at once, re-entrantly. A subscriber never receives two calls at once, and the
/// > replayed values come before any live one, after `receive(subscription:)` has returned.
// Sendable: all state lives in `core`, which guards it with a lock.
public final class ReplaySubject<Output, Failure: Error>: Subject, @unchecked Sendable {
  /// How many of the latest values the subject replays to a new subscriber.
  public let bufferSize: Int

  @usableFromInline
  let core: Core

  /// Creates a subject that replays up to `bufferSize` values.
  ///
  /// ```swift
  /// let lastThree = ReplaySubject<String, any Error>(bufferSize: 3)
  /// ```
  ///
  /// - Parameter bufferSize: How many of the latest values to keep; `0` keeps none.
  public init(bufferSize: Int) {
    precondition(bufferSize >= 0, "ReplaySubject: bufferSize must not be negative")
    self.bufferSize = bufferSize
    core = Core(capacity: bufferSize)
  }

  deinit {
    core.cancelUpstreams()
  }

  /// Records a value and sends it to each subscriber; ignored after the completion.
  ///
  /// - Parameter value: The value to send.
  @inlinable
  public func send(_ value: Output) {
    core.send(value)
  }

  /// Ends the subject, once; later values and completions are ignored.
  ///
  /// - Parameter completion: How the subject ends; replayed to later subscribers.
  public func send(completion: Subscribers.Completion<Failure>) {
    core.send(completion: completion)
  }

  /// Keeps an upstream subscription and requests unlimited values from it.
  ///
  /// - Parameter subscription: The upstream subscription, cancelled when the subject goes away.
  public func send(subscription: any Subscription) {
    core.send(subscription: subscription)
  }

  /// The subscriptions of the current subscribers, in the order they subscribed: each one
  /// until it is cancelled or the subject has ended.
  ///
  /// ```swift
  /// let subject = ReplaySubject<Int, Never>(bufferSize: 1)
  /// let cancellable = subject.sink { print($0) }
  /// print(subject.subscriptions.count)  // 1
  /// ```
  ///
  /// CombineExt keeps this list too (its tests read it); each element is the subscription its
  /// subscriber received, so their `combineIdentifier`s match.
  ///
  /// > Thread safety: Safe from any thread; the list is a snapshot.
  public var subscriptions: [any Subscription] {
    let conduits = core.lock.withLock { core.conduits }
    return conduits.compactMap { $0 as? any Subscription }
  }

  /// Attaches a subscriber and replays the kept values to it.
  @inlinable
  public func receive<S: Subscriber>(subscriber: S) where Output == S.Input, Failure == S.Failure {
    core.subscribe(subscriber)
  }
}

extension ReplaySubject: UpstreamReleasingSubject {
  package func releaseUpstream(_ subscription: any Subscription) {
    core.releaseUpstream(subscription)
  }
}

extension ReplaySubject {
  /// The subject's state, behind one lock.
  ///
  /// The replaying counterpart of StreamCore's `SubjectCore` (the core of `PassthroughSubject`
  /// and `CurrentValueSubject`): the same split into a core that holds the subscriber list, the
  /// completion and the upstream subscriptions, and one conduit per subscriber. It differs in
  /// keeping the latest `capacity` values (`buffer`, a StreamCore `RingBuffer`) for later
  /// subscribers; a conduit's state has a lock of its own, which is never taken while the
  /// core's is held.
  // Sendable: every mutable property is guarded by `lock`.
  @usableFromInline
  final class Core: @unchecked Sendable {
    @usableFromInline
    let lock = Lock()
    @usableFromInline
    let capacity: Int
    @usableFromInline
    @exclusivity(unchecked) var buffer = RingBuffer<Output>()
    @usableFromInline
    @exclusivity(unchecked) var completion: Subscribers.Completion<Failure>?
    @usableFromInline
    @exclusivity(unchecked) var conduits: [ConduitBase] = []
    @exclusivity(unchecked) var upstreams: [any Subscription] = []

    init(capacity: Int) {
      self.capacity = capacity
    }

    @inlinable
    func send(_ value: Output) {
      let (targets, dropped) = lock.withLock { () -> ([ConduitBase], Output?) in
        guard completion == nil else { return ([], nil) }
        return (conduits, buffer.append(value, limit: capacity))
      }
      _ = dropped  // released here, after the lock
      guard !targets.isEmpty else { return }
      let me = ThreadID.current
      for conduit in targets {
        conduit.offer(value, from: me)
      }
    }

    func send(completion: Subscribers.Completion<Failure>) {
      let targets = lock.withLock { () -> [ConduitBase] in
        guard self.completion == nil else { return [] }
        self.completion = completion
        defer { conduits = [] }
        return conduits
      }
      let me = ThreadID.current
      for conduit in targets {
        conduit.finish(completion, from: me)
      }
    }

    func send(subscription: any Subscription) {
      lock.withLock { upstreams.append(subscription) }
      subscription.request(.unlimited)
    }

    /// Inlinable, so that the conduit is made where the subscriber's type is known: its entry
    /// points are then specialised for that subscriber (see ``ConduitBase``).
    @inlinable
    func subscribe<S: Subscriber>(_ subscriber: S) where S.Input == Output, S.Failure == Failure {
      let conduit = lock.withLock { () -> Conduit<S> in
        let conduit = Conduit(
          downstream: subscriber,
          core: self,
          replay: buffer,
          completion: completion
        )
        if completion == nil { conduits.append(conduit) }
        return conduit
      }
      conduit.start(subscriber, as: ThreadID.current)
    }

    /// Takes a cancelled conduit out of the list. The caller holds the conduit, so removing it
    /// releases nothing under the lock.
    @usableFromInline
    func remove(_ conduit: ConduitBase) {
      lock.withLock {
        guard let index = conduits.firstIndex(where: { $0 === conduit }) else { return }
        let removed = conduits.remove(at: index)
        withExtendedLifetime(removed) {}  // the caller's reference keeps it alive anyway
      }
    }

    /// Drops an upstream subscription that has ended.
    func releaseUpstream(_ subscription: any Subscription) {
      let id = subscription.combineIdentifier
      let removed = lock.withLock { () -> (any Subscription)? in
        guard let index = upstreams.firstIndex(where: { $0.combineIdentifier == id }) else {
          return nil
        }
        return upstreams.remove(at: index)
      }
      _ = removed  // released here, outside the lock
    }

    func cancelUpstreams() {
      let taken = lock.withLock { () -> [any Subscription] in
        defer { upstreams = [] }
        return upstreams
      }
      for upstream in taken {
        upstream.cancel()
      }
    }
  }
}
