public import Dispatch
import PropertyWrappers
import SignalOperators
public import StreamCore

extension Publisher {
  /// Subscribes with Snail's three optional closures, delivered by Snail's queue rules.
  ///
  /// ```swift
  /// userLoaded.subscribe(queue: .main, onNext: { user in label.text = user.name })
  ///   .add(to: disposer)
  /// ```
  ///
  /// It requests `.unlimited`. Where the closures run:
  /// - `queue == nil`: synchronously, on the thread that sends the event;
  /// - `queue == .main` and the event is sent on the main queue: synchronously, unless events
  ///   another thread sent earlier are still waiting for the main queue; then after them, so
  ///   events always keep their send order and a completion never drops values before it;
  /// - any other case: asynchronously on `queue`, one event after another and in the order they
  ///   were sent, even on a concurrent queue.
  ///
  /// As in Snail, the subscription lives until it is disposed (``SnailSubscription/dispose()``,
  /// `cancel()`, or a ``Disposer`` it was added to) or until the publisher completes: the
  /// publisher holds it, so the result may be ignored. Nothing is called once the subscription
  /// is disposed (from the thread that disposes it), and the closures are released when the
  /// publisher completes or the subscription is disposed. A publisher that is released without
  /// completing keeps a subscription it holds until that is disposed, so give long-lived
  /// subscriptions to a ``Disposer``.
  ///
  /// > Thread safety: The publisher may send from any thread; dispose from any thread.
  ///
  /// - Parameters:
  ///   - queue: Where to run the closures; `nil` runs them on the sending thread.
  ///   - onNext: Called with each value.
  ///   - onError: Called once if the publisher fails.
  ///   - onDone: Called once if the publisher finishes.
  /// - Returns: The subscription, to dispose of or add to a ``Disposer``; dropping it does not
  ///   end the subscription.
  @discardableResult
  public func subscribe(
    queue: DispatchQueue? = nil,
    onNext: ((Output) -> Void)? = nil,
    onError: ((Failure) -> Void)? = nil,
    onDone: (() -> Void)? = nil
  ) -> SnailSubscription {
    let subscriber = SnailSubscriber<Output, Failure>(
      queue: queue,
      onNext: onNext,
      onError: onError,
      onDone: onDone
    )
    subscribe(subscriber)
    return SnailSubscription(subscriber)
  }
}

/// A subscription made by Snail's `subscribe(queue:onNext:onError:onDone:)` or
/// `forward(to:)`: Snail's `Subscriber<T>` token.
///
/// ```swift
/// let subscription = subject.subscribe(onNext: { print($0) })
/// subscription.dispose()  // or .add(to: disposer)
/// ```
///
/// Unlike an `AnyCancellable`, releasing it does **not** end the subscription: the publisher
/// holds the subscription until it completes or until it is disposed here, as a Snail observable
/// held its subscribers. ``dispose()`` and ``cancel()`` are the same, and idempotent.
///
/// > Thread safety: Dispose from any thread.
public final class SnailSubscription: Cancellable, Sendable {
  private let subscriber: any Cancellable & Sendable

  init(_ subscriber: any Cancellable & Sendable) {
    self.subscriber = subscriber
  }

  /// Ends the subscription: no closure is called afterwards, and what it held is released.
  ///
  /// ```swift
  /// subscription.cancel()
  /// ```
  ///
  /// > Thread safety: Safe from any thread; a second call does nothing.
  public func cancel() {
    subscriber.cancel()
  }

  /// Ends the subscription, Snail's `Subscriber.dispose()`; the same as ``cancel()``.
  ///
  /// ```swift
  /// subscription.dispose()
  /// ```
  ///
  /// > Thread safety: Safe from any thread; a second call does nothing.
  public func dispose() {
    subscriber.cancel()
  }
}

/// The main queue's marker, so that "sending on the main queue" is known without Foundation.
private enum SnailMainQueue {
  static let key: DispatchSpecificKey<UInt8> = {
    let key = DispatchSpecificKey<UInt8>()
    DispatchQueue.main.setSpecific(key: key, value: 1)
    return key
  }()

  /// Whether `queue` is the main queue: on Linux `DispatchQueue.main` is a new wrapper on every
  /// access, so identity can't tell; the queue's own specific can.
  static func isMain(_ queue: DispatchQueue) -> Bool { queue.getSpecific(key: key) != nil }

  /// Whether the caller runs on the main queue.
  static var isCurrent: Bool { DispatchQueue.getSpecific(key: key) != nil }
}

// Sendable: all mutable state is guarded by `lock`; the closures are called outside it.
private final class SnailSubscriber<Input, Failure: Error>: @unchecked Sendable, Subscriber,
  Cancellable
{
  private enum Event {
    case next(Input)
    case completion(Subscribers.Completion<Failure>)
  }

  private struct Handlers {
    var onNext: ((Input) -> Void)?
    var onError: ((Failure) -> Void)?
    var onDone: (() -> Void)?
  }

  /// ```
  /// live(upstream: awaiting) --receive(subscription:)--> live(upstream: subscribed)
  /// live(upstream: subscribed) --receive(completion:)--> live(upstream: completed)
  /// live --completion run / cancel()--> ended (closures and queued events released)
  /// ```
  private enum State {
    case live(Live)
    case ended
  }

  private enum UpstreamState {
    case awaiting
    case subscribed(any Subscription)
    /// The upstream completed; the completion event may still wait for `queue`.
    case completed
  }

  private struct Live {
    var handlers: Handlers
    var upstream = UpstreamState.awaiting
    /// Events waiting for `queue`; the drain is claimed while a drain is scheduled on it.
    var pending = RingBuffer<Event>()
    var drain = SerialDrain()
  }

  /// What ending the subscription takes out of the state, released after the lock.
  private struct Released {
    var handlers: Handlers
    var upstream: (any Subscription)?
    var pending: RingBuffer<Event>
  }

  private let lock = Lock()
  private let queue: DispatchQueue?
  private var state: State

  init(
    queue: DispatchQueue?,
    onNext: ((Input) -> Void)?,
    onError: ((Failure) -> Void)?,
    onDone: (() -> Void)?
  ) {
    self.queue = queue
    state = .live(Live(handlers: Handlers(onNext: onNext, onError: onError, onDone: onDone)))
  }

  func receive(subscription: any Subscription) {
    let accepted = lock.withLock { () -> Bool in
      guard case .live(var live) = state, case .awaiting = live.upstream else { return false }
      live.upstream = .subscribed(subscription)
      state = .live(live)
      return true
    }
    guard accepted else {
      subscription.cancel()
      return
    }
    subscription.request(.unlimited)
  }

  func receive(_ input: Input) -> Subscribers.Demand {
    deliver(.next(input))
    return .none
  }

  func receive(completion: Subscribers.Completion<Failure>) {
    let upstream = lock.withLock { () -> (any Subscription)? in
      guard case .live(var live) = state, case .subscribed(let upstream) = live.upstream else {
        return nil
      }
      live.upstream = .completed
      state = .live(live)
      return upstream
    }
    _ = upstream
    deliver(.completion(completion))
  }

  func cancel() {
    end()?.upstream?.cancel()
  }

  /// Ends the subscription; what it held, to release after the lock (`nil` if already ended).
  private func end() -> Released? {
    lock.withLock { () -> Released? in
      guard case .live(let live) = state else { return nil }
      state = .ended
      var upstream: (any Subscription)?
      if case .subscribed(let subscription) = live.upstream { upstream = subscription }
      return Released(handlers: live.handlers, upstream: upstream, pending: live.pending)
    }
  }

  private enum DeliverAction {
    case runNow
    case schedule
    case nothing
  }

  private func deliver(_ event: Event) {
    guard let queue else {
      run(event)
      return
    }
    // On the main thread for the main queue, an event runs at once only if nothing is queued
    // for main before it; otherwise it joins the queue, so events keep their send order (a
    // completion must not overtake, and drop, values another thread queued).
    let onMain = SnailMainQueue.isMain(queue) && SnailMainQueue.isCurrent
    let action = lock.withLock { () -> DeliverAction in
      guard case .live(var live) = state else { return .nothing }
      if onMain, live.pending.isEmpty { return .runNow }
      state = .ended  // keeps `live` uniquely referenced while it changes
      live.pending.append(event)
      let claimed = live.drain.claim()
      state = .live(live)
      return claimed ? .schedule : .nothing
    }
    switch action {
    case .runNow: run(event)
    case .schedule: queue.async { self.drain() }
    case .nothing: break
    }
  }

  /// Runs on `queue`: delivers the pending events one by one, in order.
  private func drain() {
    SerialDrain.run(lock) { () -> Event? in
      guard case .live(var live) = state else { return nil }
      state = .ended
      defer { state = .live(live) }
      guard let event = live.pending.popFirst() else {
        live.drain.release()
        return nil
      }
      return event
    } perform: { event in
      run(event)
      return true
    }
  }

  /// Calls the closure for `event`, unless the subscription has ended.
  private func run(_ event: Event) {
    switch event {
    case .next(let value):
      let onNext = lock.withLock { () -> ((Input) -> Void)? in
        guard case .live(let live) = state else { return nil }
        return live.handlers.onNext
      }
      onNext?(value)
    case .completion(let completion):
      let released = end()
      switch completion {
      case .finished: released?.handlers.onDone?()
      case .failure(let error): released?.handlers.onError?(error)
      }
    }
  }
}
