import SignalOperators
public import StreamCore

extension Publisher {
  /// Publishes an array of the n-th values of this publisher and each of `others`, once each
  /// has sent its n-th value.
  ///
  /// ```swift
  /// let cancellable = pages.zip(with: [thumbnails, captions]).sink { print($0) }
  /// // [page n, thumbnail n, caption n]
  /// ```
  ///
  /// One subscription holds a queue of values per publisher, so it takes any number of
  /// publishers (a hundred thousand `Just`s zip into one array). It has `zip(_:)`'s rules, as
  /// CombineExt's chain of `zip` does: each request of the subscriber, and the demand it returns
  /// for an array, goes to every publisher; a value waits in its publisher's queue until every
  /// queue has one and the subscriber has demand. It finishes once a publisher has finished and
  /// its queue is empty, cancelling the others; the first failure fails it, after the arrays the
  /// queues still make while there is demand. The array is in the order of the publishers, this
  /// one first. The subscription is described as `"Zip"`.
  ///
  /// <!-- marbles:zip-many -->
  /// Marble diagram of `[first, second, third].zip()`, made by running it (a character is a tick of
  /// virtual time; `|` finished, `#` failed, `(ab)` one instant):
  ///
  /// ```text
  /// first   -a-b---c|
  /// second  --1---2-|
  /// third   ---A-B---|
  /// output  ---x--y-|
  ///         x = [a, 1, A], y = [b, 2, B]
  /// ```
  ///
  /// ![Marble diagram of [first, second, third].zip()](marble-zip-many)
  /// <!-- /marbles:zip-many -->
  ///
  /// > Thread safety: The publishers may send from any threads at once; calls to the subscriber
  /// > never overlap: an array a value completes while another thread delivers is delivered by
  /// > that thread, after its own.
  ///
  /// - Parameter others: The other publishers to zip with this one.
  /// - Returns: A publisher of arrays of values, one from each publisher.
  public func zip<Others: Collection>(with others: Others) -> AnyPublisher<[Output], Failure>
  where
    Others.Element: Publisher,
    Others.Element.Output == Output,
    Others.Element.Failure == Failure
  {
    var upstreams = [eraseToAnyPublisher()]
    upstreams.reserveCapacity(others.count + 1)
    for other in others { upstreams.append(other.eraseToAnyPublisher()) }
    return ZipMany(upstreams: upstreams).eraseToAnyPublisher()
  }

  /// Publishes an array of the n-th values of this publisher and each of `others`, once each
  /// has sent its n-th value.
  ///
  /// ```swift
  /// let cancellable = pages.zip(with: thumbnails, captions).sink { print($0) }
  /// ```
  ///
  /// As `zip(with:)` of a collection.
  ///
  /// <!-- marbles:zip-many -->
  /// Marble diagram of `[first, second, third].zip()`, made by running it (a character is a tick of
  /// virtual time; `|` finished, `#` failed, `(ab)` one instant):
  ///
  /// ```text
  /// first   -a-b---c|
  /// second  --1---2-|
  /// third   ---A-B---|
  /// output  ---x--y-|
  ///         x = [a, 1, A], y = [b, 2, B]
  /// ```
  ///
  /// ![Marble diagram of [first, second, third].zip()](marble-zip-many)
  /// <!-- /marbles:zip-many -->
  ///
  /// > Thread safety: As `zip(with:)` of a collection.
  ///
  /// - Parameter others: The other publishers to zip with this one.
  /// - Returns: A publisher of arrays of values, one from each publisher.
  public func zip<Other: Publisher>(with others: Other...) -> AnyPublisher<[Output], Failure>
  where Other.Output == Output, Other.Failure == Failure {
    zip(with: others)
  }
}

extension Collection where Element: Publisher {
  /// Publishes an array of the n-th values of the collection's publishers, once each has sent
  /// its n-th value.
  ///
  /// ```swift
  /// let cancellable = [pages, thumbnails, captions].zip().sink { print($0) }
  /// ```
  ///
  /// An empty collection gives a publisher that finishes at once, without a value. Otherwise as
  /// `zip(with:)` of a collection, the first publisher zipped with the rest: one subscription
  /// for any number of publishers.
  ///
  /// <!-- marbles:zip-many -->
  /// Marble diagram of `[first, second, third].zip()`, made by running it (a character is a tick of
  /// virtual time; `|` finished, `#` failed, `(ab)` one instant):
  ///
  /// ```text
  /// first   -a-b---c|
  /// second  --1---2-|
  /// third   ---A-B---|
  /// output  ---x--y-|
  ///         x = [a, 1, A], y = [b, 2, B]
  /// ```
  ///
  /// ![Marble diagram of [first, second, third].zip()](marble-zip-many)
  /// <!-- /marbles:zip-many -->
  ///
  /// > Thread safety: As `zip(with:)` of a collection.
  ///
  /// - Returns: A publisher of arrays of values, in the collection's order.
  public func zip() -> AnyPublisher<[Element.Output], Element.Failure> {
    guard !isEmpty else { return Empty().eraseToAnyPublisher() }
    return ZipMany(upstreams: Array(self)).eraseToAnyPublisher()
  }
}

/// The publisher behind `zip(with:)` and `Collection.zip()`: the arrays of the n-th values of
/// `upstreams`, which is not empty.
struct ZipMany<Upstream: Publisher>: Publisher {
  typealias Output = [Upstream.Output]
  typealias Failure = Upstream.Failure

  let upstreams: [Upstream]

  func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
    let inner = ZipManyInner<Upstream.Output, S>(downstream: subscriber, count: upstreams.count)
    // As Combine's zip: the publishers first, then the subscriber gets its subscription.
    for (index, upstream) in upstreams.enumerated() {
      upstream.subscribe(ZipManySide(inner: inner, index: index))
    }
    inner.start()
  }
}

/// The subscriber to one publisher of a `zip` of many: forwards to the subscription, naming its
/// index.
struct ZipManySide<Value, Downstream: Subscriber>: Subscriber where Downstream.Input == [Value] {
  typealias Input = Value
  typealias Failure = Downstream.Failure

  let inner: ZipManyInner<Value, Downstream>
  let index: Int
  let combineIdentifier = CombineIdentifier()

  func receive(subscription: any Subscription) {
    inner.receive(subscription: subscription, at: index)
  }

  func receive(_ input: Value) -> Subscribers.Demand {
    inner.receive(input, at: index)
    return .none  // the subscriber's demand reaches every publisher through `request(_:)`
  }

  func receive(completion: Subscribers.Completion<Failure>) {
    inner.receive(completion: completion, at: index)
  }
}

/// The subscription of a `zip` of many publishers: ``ZipManyState`` under a lock, delivered
/// through the serial drain, so a synchronous publisher answering a request never makes
/// deliveries nest.
// Sendable: `state` is guarded by `lock`; the publishers and the subscriber are called after it.
final class ZipManyInner<Value, Downstream: Subscriber>: Subscription, CustomStringConvertible,
  CustomReflectable, CustomPlaygroundDisplayConvertible, @unchecked Sendable
where Downstream.Input == [Value] {
  private let lock = Lock()
  private var state: ZipManyState<Value, Downstream>

  init(downstream: Downstream, count: Int) {
    state = ZipManyState(downstream: downstream, count: count)
  }

  var description: String { "Zip" }

  /// The subscriber (`nil` once the subscription ended) and the demand not yet met.
  var customMirror: Mirror {
    let (downstream, demand) = lock.withLock { (state.downstream, state.demand) }
    return Mirror(self, children: ["downstream": downstream as Any, "demand": demand])
  }

  var playgroundDescription: Any { description }

  /// Hands the subscriber its subscription, once every publisher is subscribed, then delivers
  /// what arrived meanwhile.
  func start() {
    guard let downstream = lock.withLock({ state.downstream }) else { return }
    downstream.receive(subscription: self)
    if lock.withLock({ state.start() }) { drain() }
  }

  func receive(subscription: any Subscription, at index: Int) {
    guard let demand = lock.withLock({ state.subscribed(subscription, at: index) }) else {
      subscription.cancel()
      return
    }
    if demand > .none { subscription.request(demand) }
  }

  func receive(_ value: Value, at index: Int) {
    if lock.withLock({ state.receive(value, at: index) }) { drain() }
  }

  func receive(completion: Subscribers.Completion<Downstream.Failure>, at index: Int) {
    let completed = lock.withLock { state.complete(completion, at: index) }
    _ = completed.released  // released after the lock
    if completed.claimed { drain() }
  }

  func request(_ demand: Subscribers.Demand) {
    demand.assertPositive()
    add(demand)
  }

  func cancel() {
    let cancelled = lock.withLock { state.cancel() }
    for upstream in cancelled.upstreams { upstream?.cancel() }
  }  // the subscriber, the queued values and a pending completion are released here

  /// Adds demand, asks the publishers for it, and delivers if that made an array ready.
  private func add(_ demand: Subscribers.Demand) {
    guard let requested = lock.withLock({ state.add(demand) }) else { return }
    for upstream in requested.upstreams { upstream?.request(demand) }
    if requested.claimed { drain() }
  }

  private func drain() {
    SerialDrain.run(lock) {
      state.nextStep()
    } perform: { step in
      switch consume step {
      case .value(let array, let downstream):
        let more = downstream.receive(array)
        if more > .none { add(more) }  // the drain is ours: no delivery from inside
        return true
      case .completion(let completion, let downstream, let cancels, let released):
        downstream.receive(completion: completion)
        for upstream in cancels { upstream.cancel() }  // after the completion, as Combine's zip
        _ = consume released
        return false
      }
    }
  }
}
