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
/// > Every subscriber sees the values in the order the subject recorded them, never two at once:
/// > a value sent while a subscriber is being delivered to (from inside it or from another thread)
/// > is queued and delivered by the delivering thread right after.
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
  /// The subject's state and the state of all its conduits, behind one lock.
  ///
  /// The replaying counterpart of StreamCore's `SubjectCore` (the core of `PassthroughSubject`
  /// and `CurrentValueSubject`): the same split into a core that holds the subscriber list, the
  /// completion and the upstream subscriptions, and one conduit per subscriber. It differs in
  /// keeping the latest `capacity` values (`buffer`, a StreamCore `RingBuffer`) and in guarding
  /// every conduit's state with the core's one lock, so that a value is recorded and queued for each
  /// subscriber atomically and all subscribers see the same order (see ``ConduitState``).
  // Sendable: every mutable property, and every conduit's state, is guarded by `lock`.
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
      let (targets, dropped) = lock.withLock { () -> ([ConduitBase]?, Output?) in
        guard completion == nil else { return (nil, nil) }
        // A conduit's kept values are always the subject's latest ones, so the value a full
        // conduit drops is the one dropped here; holding it releases it after the lock.
        let dropped = buffer.append(value, limit: capacity)
        var claimed = false
        for conduit in conduits {
          if conduit.enqueue(value) { claimed = true }
        }
        return (claimed ? conduits : nil, dropped)
      }
      _ = dropped
      guard let targets else { return }
      for conduit in targets {
        conduit.drainIfClaimed()
      }
    }

    func send(completion: Subscribers.Completion<Failure>) {
      let targets = lock.withLock { () -> [ConduitBase] in
        guard self.completion == nil else { return [] }
        self.completion = completion
        var claimed = false
        for conduit in conduits {
          if conduit.finish(completion) { claimed = true }
        }
        defer { conduits = [] }
        return claimed ? conduits : []
      }
      for conduit in targets {
        conduit.drainIfClaimed()
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
        // The subscribing thread holds the new conduit's drain until it has handed it over.
        let conduit = Conduit(
          downstream: subscriber,
          core: self,
          replay: buffer,
          completion: completion
        )
        if completion == nil { conduits.append(conduit) }
        return conduit
      }
      subscriber.receive(subscription: conduit)
      conduit.drain(subscriber)
    }

    /// Takes an ended conduit out of the list; under the lock. The caller holds the conduit, so
    /// removing it releases nothing.
    @usableFromInline
    func remove(_ conduit: ConduitBase) {
      if let index = conduits.firstIndex(where: { $0 === conduit }) {
        conduits.remove(at: index)
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
