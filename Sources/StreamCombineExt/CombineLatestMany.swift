import SignalOperators
public import StreamCore

extension Publisher {
  /// Publishes an array of the latest values of this publisher and each of `others` whenever
  /// one sends, once all have sent at least one value.
  ///
  /// ```swift
  /// let cancellable = cpu.combineLatest(with: [memory, disk]).sink { print($0) }
  /// // [cpu, memory, disk] each time one of them changes
  /// ```
  ///
  /// One subscription holds the latest value of each publisher, so it takes any number of
  /// publishers (a hundred thousand `Just`s combine into one array). It has
  /// `combineLatest(_:)`'s rules, as CombineExt's chain of `combineLatest` does: each request of
  /// the subscriber, and the demand it returns for an array, goes to every publisher; only the
  /// requested arrays go down, and a value that finds no demand replaces the stored one, the
  /// next request sending the latest values. It finishes once every publisher has finished
  /// (never while one that has not sent a value goes on); the first failure fails it, after
  /// the arrays already made, and cancels the others. The array is in the order of the
  /// publishers, this one first. The subscription is described as `"CombineLatest"`.
  ///
  /// <!-- marbles:combine-latest-many -->
  /// Marble diagram of `[first, second, third].combineLatest()`, made by running it (a character is
  /// a tick of virtual time; `|` finished, `#` failed, `(ab)` one instant):
  ///
  /// ```text
  /// first   -a----b---|
  /// second  --1-----2-|
  /// third   ---A---B--|
  /// output  ---x--yzw-|
  ///         x = [a, 1, A], y = [b, 1, A], z = [b, 1, B], w = [b, 2, B]
  /// ```
  ///
  /// ![Marble diagram of [first, second, third].combineLatest()](marble-combine-latest-many)
  /// <!-- /marbles:combine-latest-many -->
  ///
  /// > Thread safety: The publishers may send from any threads at once; calls to the subscriber
  /// > never overlap: an array made while another thread delivers is delivered by that thread,
  /// > in the order the arrays were made.
  ///
  /// - Parameter others: The other publishers to combine with this one.
  /// - Returns: A publisher of arrays of the latest values.
  public func combineLatest<Others: Collection>(
    with others: Others
  ) -> AnyPublisher<
    [Output], Failure
  >
  where
    Others.Element: Publisher,
    Others.Element.Output == Output,
    Others.Element.Failure == Failure
  {
    var upstreams = [eraseToAnyPublisher()]
    upstreams.reserveCapacity(others.count + 1)
    for other in others { upstreams.append(other.eraseToAnyPublisher()) }
    return CombineLatestMany(upstreams: upstreams).eraseToAnyPublisher()
  }

  /// Publishes an array of the latest values of this publisher and each of `others` whenever
  /// one sends, once all have sent at least one value.
  ///
  /// ```swift
  /// let cancellable = cpu.combineLatest(with: memory, disk).sink { print($0) }
  /// ```
  ///
  /// As `combineLatest(with:)` of a collection.
  ///
  /// <!-- marbles:combine-latest-many -->
  /// Marble diagram of `[first, second, third].combineLatest()`, made by running it (a character is
  /// a tick of virtual time; `|` finished, `#` failed, `(ab)` one instant):
  ///
  /// ```text
  /// first   -a----b---|
  /// second  --1-----2-|
  /// third   ---A---B--|
  /// output  ---x--yzw-|
  ///         x = [a, 1, A], y = [b, 1, A], z = [b, 1, B], w = [b, 2, B]
  /// ```
  ///
  /// ![Marble diagram of [first, second, third].combineLatest()](marble-combine-latest-many)
  /// <!-- /marbles:combine-latest-many -->
  ///
  /// > Thread safety: As `combineLatest(with:)` of a collection.
  ///
  /// - Parameter others: The other publishers to combine with this one.
  /// - Returns: A publisher of arrays of the latest values.
  public func combineLatest<Other: Publisher>(
    with others: Other...
  ) -> AnyPublisher<
    [Output], Failure
  >
  where Other.Output == Output, Other.Failure == Failure {
    combineLatest(with: others)
  }
}

extension Collection where Element: Publisher {
  /// Publishes an array of the latest values of the collection's publishers whenever one sends,
  /// once all have sent at least one value.
  ///
  /// ```swift
  /// let cancellable = [cpu, memory, disk].combineLatest().sink { print($0) }
  /// ```
  ///
  /// An empty collection gives a publisher that finishes at once, without a value. Otherwise as
  /// `combineLatest(with:)` of a collection, the first publisher combined with the rest: one
  /// subscription for any number of publishers.
  ///
  /// <!-- marbles:combine-latest-many -->
  /// Marble diagram of `[first, second, third].combineLatest()`, made by running it (a character is
  /// a tick of virtual time; `|` finished, `#` failed, `(ab)` one instant):
  ///
  /// ```text
  /// first   -a----b---|
  /// second  --1-----2-|
  /// third   ---A---B--|
  /// output  ---x--yzw-|
  ///         x = [a, 1, A], y = [b, 1, A], z = [b, 1, B], w = [b, 2, B]
  /// ```
  ///
  /// ![Marble diagram of [first, second, third].combineLatest()](marble-combine-latest-many)
  /// <!-- /marbles:combine-latest-many -->
  ///
  /// > Thread safety: As `combineLatest(with:)` of a collection.
  ///
  /// - Returns: A publisher of arrays of the latest values, in the collection's order.
  public func combineLatest() -> AnyPublisher<[Element.Output], Element.Failure> {
    guard !isEmpty else { return Empty().eraseToAnyPublisher() }
    return CombineLatestMany(upstreams: Array(self)).eraseToAnyPublisher()
  }
}

/// The publisher behind `combineLatest(with:)` and `Collection.combineLatest()`: arrays of the
/// latest values of `upstreams`, which is not empty.
struct CombineLatestMany<Upstream: Publisher>: Publisher {
  typealias Output = [Upstream.Output]
  typealias Failure = Upstream.Failure

  let upstreams: [Upstream]

  func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
    let inner = CombineLatestManyInner<Upstream.Output, S>(
      downstream: subscriber,
      count: upstreams.count
    )
    // As Combine's combineLatest: the publishers first, then the subscriber gets its
    // subscription.
    for (index, upstream) in upstreams.enumerated() {
      upstream.subscribe(CombineLatestManySide(inner: inner, index: index))
    }
    inner.start()
  }
}

/// The subscriber to one publisher of a `combineLatest` of many: forwards to the subscription,
/// naming its index.
struct CombineLatestManySide<Value, Downstream: Subscriber>: Subscriber
where Downstream.Input == [Value] {
  typealias Input = Value
  typealias Failure = Downstream.Failure

  let inner: CombineLatestManyInner<Value, Downstream>
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

/// The subscription of a `combineLatest` of many publishers: ``CombineLatestManyState`` under a
/// lock, delivered through the serial drain, so a synchronous publisher answering a request
/// never makes deliveries nest.
// Sendable: `state` is guarded by `lock`; the publishers and the subscriber are called after it.
final class CombineLatestManyInner<Value, Downstream: Subscriber>: Subscription,
  CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible,
  @unchecked Sendable
where Downstream.Input == [Value] {
  private let lock = Lock()
  private var state: CombineLatestManyState<Value, Downstream>

  init(downstream: Downstream, count: Int) {
    state = CombineLatestManyState(downstream: downstream, count: count)
  }

  var description: String { "CombineLatest" }

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
    let received = lock.withLock { state.receive(value, at: index) }
    if received.claimed { drain() }
  }  // the value it replaced is released here, after the lock

  func receive(completion: Subscribers.Completion<Downstream.Failure>, at index: Int) {
    let completed = lock.withLock { state.complete(completion, at: index) }
    for upstream in completed.cancels { upstream?.cancel() }
    if completed.claimed { drain() }
  }

  func request(_ demand: Subscribers.Demand) {
    demand.assertPositive()
    add(demand)
  }

  func cancel() {
    let cancelled = lock.withLock { state.cancel() }
    for upstream in cancelled.upstreams { upstream?.cancel() }
  }  // the subscriber, the latest values and the queued arrays are released here

  /// Adds demand, asks the publishers for it, and delivers if that released the held array.
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
      case .completion(let completion, let downstream, let released):
        downstream.receive(completion: completion)
        _ = consume released
        return false
      }
    }
  }
}
