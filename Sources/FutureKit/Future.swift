public import StreamCore

/// A publisher that eventually produces a single value and then finishes, or fails: Combine's
/// `Future` and Propagate's `Future` in one type.
///
/// ```swift
/// // Combine style: the closure runs at once and is handed the promise.
/// let answer = Future<Int, Never> { promise in
///   DispatchQueue.global().async { promise(.success(42)) }
/// }
/// let cancellable = answer.sink { print($0) }  // prints 42
///
/// // Propagate style (with StreamPropagate): a `Promise` owns the future; callbacks chain.
/// let promise = Promise<User, LoadError>()
/// promise.future
///   .onSuccess { show($0) }
///   .onFailure { report($0) }
///   .finally { _ in hideSpinner() }
/// promise.resolve(user)
///
/// // Back into async code.
/// let loaded = await answer.value
/// ```
///
/// The first result wins: later calls to the promise (or to `Promise.resolve(_:)`,
/// `Promise.reject(_:)`) are ignored. The result is stored, and reads such as `isComplete`
/// and `resolvedValue` see it as soon as the completing call has set it.
///
/// **As a publisher** every subscriber, including one that arrives after completion, gets its
/// own subscription (described as `"Future"`). A success is delivered once the subscriber has
/// requested at least one value, followed at once by `.finished`; a failure needs no demand.
/// Delivery happens on the thread that completes the future or that requests, and never while
/// `receive(subscription:)` is still running: a result already known when you subscribe is
/// delivered right after `receive(subscription:)` returns (Combine delivers it from inside).
///
/// **Callbacks** (StreamPropagate's `onSuccess(onQueue:_:)`, `onFailure(onQueue:_:)`,
/// `finally(onQueue:_:)`) each run exactly once, and never inside the call that completes the
/// future or registers the callback, as in Propagate:
/// - without a queue, asynchronously on the future's own private serial queue, in registration
///   order, also when the future is already complete;
/// - with a queue, asynchronously on that queue (`queue.async`).
///
/// Synchronous delivery is available under its own name: `onSuccess(_:_:)` and its siblings
/// with `synchronously` run the callback on the thread that completes the
/// future, or at once on the registering thread when it is already complete. No callback,
/// subscriber or continuation is ever called while a lock of the future is held, so a callback
/// may register further callbacks, subscribe, or complete other promises.
///
/// **Names.** Combine's `value` is the asynchronous value (`try await future.value`), so
/// Propagate's synchronous `value: T?` is `resolvedValue` here. `error`, `succeeded`,
/// `failed` and `isComplete` keep Propagate's names. Inside this type `Promise` is Combine's
/// closure type (`Future<Int, Never>.Promise`); Propagate's promise class is
/// `StreamPropagate.Promise`, written `Promise<Int, Never>` outside it.
///
/// **Sendable.** `Future` is `Sendable` and, like Combine's, doesn't require `Output: Sendable`:
/// the value is handed to every subscriber and callback, which may run on different threads,
/// so share a future across threads only when its value may be shared. Where Swift checks
/// isolation, the requirements are explicit: `await future.value` needs `Output: Sendable`, and
/// StreamConcurrency's `init(priority:operation:)` takes a `@Sendable` operation. The promise, callbacks and
/// transforms are `@Sendable` closures, because they run on whichever thread completes the
/// future.
///
/// > Thread safety: Every method may be called from any thread, at any time. Completion and
/// > registration are serialised by the future's lock, demand and cancellation by each
/// > subscription's own lock; neither is held while user code runs. One subscriber is never
/// > called from two threads at once.
// Sendable: every mutable property is guarded by `lock`; `resolution` and `storedResult` change
// only once, and subscribers, callbacks and continuations are called after the lock is released.
public final class Future<Output, Failure: Error>: Publisher, @unchecked Sendable {
  /// The closure a Combine-style future hands out: call it with the result, once, from any thread.
  ///
  /// Later calls are ignored. It is `@Sendable` (Combine's is not) so that it can be called from
  /// another thread under Swift 6.
  public typealias Promise = @Sendable (Result<Output, Failure>) -> Void

  @usableFromInline
  package let lock = Lock()

  /// `.pending` until the future completes; never changes after that.
  @usableFromInline
  @exclusivity(unchecked) package var resolution = FutureResolution.pending

  /// The `Result<Output, Failure>`, once complete; never changes after that.
  ///
  /// Held as an existential rather than as `Result<Output, Failure>?`: the existential's layout
  /// doesn't depend on the generic types, so the unspecialised `deinit` destroys it without
  /// looking up type metadata. A result of up to three words is stored inline; a larger one
  /// takes a box. Read through ``settledResult``; until completion it holds a placeholder.
  @usableFromInline
  @exclusivity(unchecked) var storedResult: any FutureStoredResult = FutureNoResult()

  /// The first waiter, kept outside `otherWaiters` so that one subscriber needs no array.
  @usableFromInline
  @exclusivity(unchecked) var firstWaiter: FutureWaiter<Output, Failure>?

  /// Waiters after the first, in registration order; `nil` until there is one.
  ///
  /// Optional rather than an empty array: releasing the shared empty array in `deinit` and in
  /// ``complete(_:)`` cost more than releasing `nil`.
  @usableFromInline
  @exclusivity(unchecked) var otherWaiters: ContiguousArray<FutureWaiter<Output, Failure>>?

  /// Whether any waiter after the first is registered; must run under the lock.
  @inlinable
  var hasOtherWaiters: Bool {
    guard let otherWaiters else { return false }
    return !otherWaiters.isEmpty
  }

  /// The closures of a `sink` attached while nothing else waited, kept in the future itself
  /// instead of in a subscription object (see ``sink(receiveCompletion:receiveValue:)``); it is
  /// notified before every waiter, as the first registered. `nil` unless `sinkPhase` is
  /// `.waiting`.
  ///
  /// Kept and moved as a whole `ClosureSink`, never as separate closures: a generic struct's
  /// function fields have one calling convention whatever the types, while a local closure in
  /// specialised code has another, and each conversion between them allocates a thunk (keeping
  /// the two closures separately allocates thunks for every future). The struct's layout doesn't
  /// depend on the generic types, so the unspecialised `deinit` needs no type metadata for it.
  @usableFromInline
  @exclusivity(unchecked) var keptSink: ClosureSink<Output, Failure>?

  /// Where the kept `sink` is.
  @usableFromInline
  @exclusivity(unchecked) var sinkPhase = FutureSinkPhase.empty

  /// The task of a future made with ``init(priority:operation:)``, until it completes or is
  /// cancelled.
  @usableFromInline
  @exclusivity(unchecked) package var task: Task<Void, Never>?

  /// The private serial queue of the callbacks registered without a queue, made by the first
  /// of them; never changes after that.
  @usableFromInline
  @exclusivity(unchecked) package var callbackQueue: FutureCallbackQueue<Output, Failure>?

  /// Creates a future and runs `attemptToFulfill` at once, on the calling thread.
  ///
  /// ```swift
  /// let future = Future<Data, LoadError> { promise in
  ///   loader.load { data, error in
  ///     promise(data.map { .success($0) } ?? .failure(error ?? .unknown))
  ///   }
  /// }
  /// ```
  ///
  /// The closure may call the promise before it returns, later from any thread, or never. Only
  /// the first call counts. Unlike Combine's, the closure parameter is not `@escaping`: it is
  /// called before the initialiser returns, and Combine code compiles unchanged.
  ///
  /// - Parameter attemptToFulfill: Starts the work and is handed the promise to complete it.
  @inlinable
  public init(_ attemptToFulfill: (@escaping Promise) -> Void) {
    attemptToFulfill { [self] result in
      complete(result)
    }
  }

  /// A pending future, completed through ``complete(_:)``.
  @usableFromInline
  package init() {}

  /// A future that is already complete; no callback or subscriber exists yet to notify.
  @usableFromInline
  package init(result: Result<Output, Failure>) {
    store(result)
  }

  /// Completes the future unless it already is, then notifies every waiter, in registration
  /// order, after the lock is released.
  ///
  /// - Parameter result: The result.
  /// - Returns: Whether this call completed the future.
  @inlinable
  @discardableResult
  package func complete(_ result: Result<Output, Failure>) -> Bool {
    var first: FutureWaiter<Output, Failure>?
    var others: ContiguousArray<FutureWaiter<Output, Failure>>?
    var finishedTask: Task<Void, Never>?
    var sink: ClosureSink<Output, Failure>?
    let won = lock.withLock { () -> Bool in
      guard resolution == .pending else { return false }
      store(result)
      if sinkPhase == .waiting {
        sink = keptSink.take()
        // A value is followed by `.finished` unless the sink is cancelled meanwhile.
        sinkPhase = resolution == .success ? .sending : .empty
      }
      // Moved out, not copied: no retain and release under the lock. The empty defaults are
      // left alone: a future completed by its own closure has no waiter and no task.
      first = firstWaiter.take()
      if otherWaiters != nil { others = otherWaiters.take() }
      if task != nil { finishedTask = task.take() }
      return true
    }
    guard won else { return false }
    _ = finishedTask  // released here, outside the lock
    if first == nil, others == nil, sink == nil { return true }
    // Trampolined: a waiter that completes the next future of a chain (flatMap, mapValue)
    // queues that future's waiters behind this call instead of nesting them, so resolving the
    // root of a long chain runs in constant stack.
    // Constants, not the `var`s: an escaping closure capturing a `var` would box it on the
    // heap even when only the non-escaping path runs.
    let (head, rest, kept) = (first, others, sink)
    let trampoline = Trampoline.current
    if trampoline.isRunning {
      trampoline.enqueue { [self] in
        if let kept { deliverToSink(kept, result) }
        head?.notify(result)
        if let rest { for waiter in rest { waiter.notify(result) } }
      }
    } else {
      trampoline.run {
        if let kept { deliverToSink(kept, result) }
        head?.notify(result)
        if let rest { for waiter in rest { waiter.notify(result) } }
      }
    }
    return true
  }

  /// Delivers `result` to the kept `sink`'s closures: the value then `.finished` (unless the
  /// sink is cancelled from inside its value closure, or meanwhile), or the failure.
  @inlinable
  func deliverToSink(_ sink: ClosureSink<Output, Failure>, _ result: Result<Output, Failure>) {
    switch result {
    case .success(let value):
      _ = sink.receive(value)
      let finishes = lock.withLock { () -> Bool in
        guard sinkPhase == .sending else { return false }
        sinkPhase = .empty
        return true
      }
      if finishes { sink.receive(completion: .finished) }
    case .failure(let error):
      sink.receive(completion: .failure(error))
    }
  }

  /// Keeps a `sink`'s closures in the future if it is pending and nothing else waits; returns
  /// whether it did. The caller then owns the slot's one token.
  @inlinable
  func keepSink(_ sink: ClosureSink<Output, Failure>) -> Bool {
    lock.withLock { () -> Bool in
      guard resolution == .pending, sinkPhase == .empty, firstWaiter == nil, !hasOtherWaiters
      else { return false }
      keptSink = sink
      sinkPhase = .waiting
      return true
    }
  }

  /// Cancels the kept `sink`, for its token (which calls this once): a waiting sink's closures
  /// are released and nothing is delivered; a sink being sent its value gets no `.finished`.
  /// When that leaves nobody waiting, the future's task (if any) is cancelled, as ``withdraw(_:)``
  /// does.
  @inlinable
  func cancelKeptSink() {
    var taken: ClosureSink<Output, Failure>?
    let unneeded = lock.withLock { () -> Task<Void, Never>? in
      switch sinkPhase {
      case .empty:
        return nil
      case .sending:
        sinkPhase = .empty  // the delivering thread holds the closures and skips `.finished`
        return nil
      case .waiting:
        sinkPhase = .empty
        taken = keptSink.take()
        guard resolution == .pending, firstWaiter == nil, !hasOtherWaiters, let task else {
          return nil
        }
        self.task = nil
        return task
      }
    }
    _ = taken  // released here, outside the lock
    unneeded?.cancel()
  }

  /// Attaches `subscriber`: it receives the value on its first request, then `.finished`, or
  /// the failure.
  ///
  /// - Parameter subscriber: The subscriber to attach to this future.
  @inlinable
  public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
    attach(subscriber)
  }

  /// Attaches `subscriber` and returns its subscription, for the future's own `sink`.
  @inlinable
  @discardableResult
  func attach<S: Subscriber>(_ subscriber: S) -> FutureSubscription<S?>
  where S.Input == Output, S.Failure == Failure {
    let subscription = FutureSubscription<S?>(downstream: subscriber, future: self)
    lock.withLock {
      // Seeded before the waiter is published: once it is, the resolving thread may fulfil the
      // subscription at any moment, and a later write here would overwrite its result.
      subscription.resolution = self.resolution
      // The waiter is made only when needed: a future that is already complete (the common
      // case, a closure that resolves at once) hands its result over without one. Making it
      // here only retains the subscription; nothing is released or called under the lock.
      if self.resolution == .pending {
        appendWaiter(
          FutureWaiter(id: ObjectIdentifier(subscription)) { result in
            subscription.fulfill(result)
          }
        )
      }
    }
    subscription.start(subscriber)
    return subscription
  }

  /// Stores the result; must run under the lock (or in an initialiser), once.
  @inlinable
  func store(_ result: Result<Output, Failure>) {
    if case .failure = result {
      resolution = .failure
    } else {
      resolution = .success
    }
    storedResult = result
  }

  /// Adds a waiter; must run under the lock, before completion.
  @inlinable
  func appendWaiter(_ waiter: FutureWaiter<Output, Failure>) {
    if firstWaiter == nil, !hasOtherWaiters {
      firstWaiter = waiter
    } else if otherWaiters == nil {
      otherWaiters = [waiter]
    } else {
      otherWaiters!.append(waiter)
    }
  }

  /// Runs `body` with the result once the future completes: at once, on this thread, if it
  /// already has; otherwise on the completing thread. The registration is permanent: it counts
  /// as needing the result (see ``init(priority:operation:)``).
  ///
  /// - Parameter body: Called once with the result, never under the lock.
  @usableFromInline
  package func whenComplete(_ body: @escaping @Sendable (Result<Output, Failure>) -> Void) {
    register(FutureWaiter(id: nil, notify: body))
  }

  /// Adds `waiter`, or notifies it at once if the future is complete.
  ///
  /// - Parameter waiter: The waiter.
  @usableFromInline
  func register(_ waiter: FutureWaiter<Output, Failure>) {
    let complete = lock.withLock { () -> Bool in
      if resolution != .pending { return true }
      appendWaiter(waiter)
      return false
    }
    if complete {
      waiter.notify(settledResult)
    }
  }

  /// Removes the waiter registered with `id`, if it is still waiting. When that leaves nobody
  /// waiting, the future's task (if any) is cancelled: nobody needs its result any more.
  ///
  /// - Parameter id: The waiter's identity.
  @usableFromInline
  func withdraw(_ id: ObjectIdentifier) {
    let (removed, unneeded) = lock.withLock {
      () -> (FutureWaiter<Output, Failure>?, Task<Void, Never>?) in
      var removed: FutureWaiter<Output, Failure>?
      if let first = firstWaiter, first.id == id {
        removed = first
        firstWaiter = nil
      } else if let index = otherWaiters?.firstIndex(where: { $0.id == id }) {
        removed = otherWaiters!.remove(at: index)
      }
      guard removed != nil, resolution == .pending, firstWaiter == nil, !hasOtherWaiters,
        sinkPhase != .waiting, let task
      else { return (removed, nil) }
      self.task = nil
      return (removed, task)
    }
    _ = removed  // released outside the lock
    unneeded?.cancel()
  }

  /// The result, read without the lock by code that already knows the future is complete (it
  /// was told so under a lock taken after the completion). The result never changes after that.
  ///
  /// Read without a dynamic cast: `store(_:)` is the only writer, so the existential holds a
  /// `Result<Output, Failure>` exactly. Opening it hands the value's address to code specialised
  /// for the result type, which loads it as that type (the cast `as? Result<Output, Failure>`
  /// went through the runtime on every read).
  @inlinable
  package var settledResult: Result<Output, Failure> {
    @inline(__always) get {
      precondition(resolution != .pending, "Future: read before completion")
      if Self.resultIsInline {
        // The existential's inline buffer starts at its address and holds the result itself, so
        // it is loaded (copied) from there in this specialised code, without opening the
        // existential (opening it and `withUnsafePointer` ran unspecialised).
        // Borrowed (a read access), not `inout` (a modify access): threads reading the result at
        // once, each told under the lock that the future is complete, made ThreadSanitizer report
        // a race between two `inout` accesses that only read. The borrow copies the existential
        // here, a small cost on `flatMapFuture` (Docs/Performance.md).
        return withUnsafePointer(to: storedResult) {
          UnsafeRawPointer($0).load(as: Result<Output, Failure>.self)
        }
      }
      // Borrowed in place: the existential is neither copied nor optional (an optional one was
      // copied through value witnesses).
      return Self.withAddress(of: storedResult) { $0.load(as: Result<Output, Failure>.self) }
    }
  }

  /// Whether an existential keeps a `Result<Output, Failure>` in its inline buffer rather than
  /// in a box: the runtime's rule for every existential container (a value that is bitwise
  /// takable and fits the three-word buffer's size and alignment is stored at the container's
  /// start). A constant in specialised code.
  @inlinable
  static var resultIsInline: Bool {
    typealias Stored = Result<Output, Failure>
    return _isBitwiseTakable(Stored.self)
      && MemoryLayout<Stored>.size <= 3 * MemoryLayout<UnsafeRawPointer>.size
      && MemoryLayout<Stored>.alignment <= MemoryLayout<UnsafeRawPointer>.alignment
  }

  /// Calls `body` with the address of `stored`, the value opened from `storedResult`.
  ///
  /// Generic over the opened type, and unspecialised since that type is known only at run
  /// time; `body` comes from specialised code, so nothing here looks up the metadata of
  /// `Result<Output, Failure>`. The constraint makes Swift open the existential (an unconstrained
  /// parameter would bind to the existential itself). Always inlined: only then does the caller
  /// borrow `storedResult` in place instead of copying it for the call.
  @inlinable
  @inline(__always)
  static func withAddress<Stored: FutureStoredResult, Value>(
    of stored: borrowing Stored,
    _ body: (UnsafeRawPointer) -> Value
  ) -> Value {
    withUnsafePointer(to: stored) { body(UnsafeRawPointer($0)) }
  }

  /// How many subscriptions, callbacks and awaiters wait for the result; for tests.
  package var waiterCount: Int {
    lock.withLock {
      (sinkPhase == .waiting ? 1 : 0) + (firstWaiter == nil ? 0 : 1) + (otherWaiters?.count ?? 0)
    }
  }

  /// The result, if the future is complete.
  @usableFromInline
  package var currentResult: Result<Output, Failure>? {
    let complete = lock.withLock { resolution != .pending }
    return complete ? settledResult : nil
  }
}
