import Dispatch
public import StreamCore

#if canImport(UIKit)
public import UIKit
import PropertyWrappers
#endif

/// An object that subscribes to events and streams and keeps the subscriptions itself.
///
/// ```swift
/// final class FlubberDisplay: Subscribing {
///   var cancellables = Set<AnyCancellable>()
///   let prefersMainThreadExecution = true
///   let combobulator = Combobulator()
///
///   init() {
///     subscribe(to: combobulator.refreshEvent) { [weak self] in self?.refresh() }
///     subscribe(to: combobulator.flubberBatchName, calling: FlubberDisplay.updateBatchName(to:))
///     subscribe(to: combobulator.flubberCount) { [weak self] count in
///       self?.updateFlubberCount(to: count)
///     }
///   }
///
///   func refresh() { … }
///   func updateBatchName(to name: String) { … }
///   func updateFlubberCount(to count: Int) { … }
/// }
/// ```
///
/// The `subscribe` methods sink on an ``ObservableEvent`` or ``ObservableStream`` and insert the
/// subscription into ``cancellables``:
///
/// - ``subscribe(to:performing:)-(ObservableEvent<T>,_)`` and its stream overload deliver on the
///   main queue when ``prefersMainThreadExecution`` is `true` (read once, when subscribing) and
///   on the sender's thread otherwise.
/// - ``subscribeOnSenderThread(to:performing:)-(ObservableEvent<T>,_)`` calls the closure
///   synchronously inside `send`, on the sending thread. A `send` from inside the closure is
///   delivered re-entrantly, as with any StreamCore subject. When several threads send at once,
///   the closure still runs for one value at a time: a value sent while it runs for another
///   thread's value is queued, its `send` returns, and the closure runs for it on that other
///   thread, right after.
/// - ``subscribeOnMain(to:performing:)-(ObservableEvent<T>,_)`` always hops: each value is
///   scheduled with `DispatchQueue.main.async`, even when it is sent on the main thread, so it
///   arrives one main-queue turn later. Values arrive in the order they were sent.
/// - Subscribing to a stream delivers its current value at once (on main: one turn later);
///   subscribing to an event delivers nothing until the next `send`.
///
/// There is no unsubscribe: a subscription lasts as long as it is in ``cancellables``.
/// Clearing the set, or deinitialising the object, cancels them all; values that were on their
/// way to the main queue are then dropped.
///
/// **Capture `self` weakly.** The subscription keeps the closure, and the object keeps the
/// subscription, so a closure that captures `self` strongly, or a method reference such as
/// `performing: refresh` (which captures `self` too), is a retain cycle: the object never
/// deinitialises. Write `{ [weak self] in self?.refresh() }`, or pass an unapplied method with
/// ``subscribe(to:calling:)-(ObservableEvent<T>,_)``, which holds the object weakly for you.
/// `[unowned self]` is safe only when the object is released on the thread that delivers.
///
/// Any type may conform, as in Shuttle, but the `subscribe` methods exist only on classes, as
/// Shuttle's did: a subscription stores itself in ``cancellables`` and runs later, possibly on
/// another thread, which a value type's copies can't share safely. Calling them on a struct or
/// enum conformer is a compile error that says so. Unlike Shuttle, the methods are not
/// `mutating`: they can be called from `init`, from any method and on a `let` reference. An
/// actor can't conform: its isolated ``cancellables`` can't be written from the nonisolated
/// `subscribe` methods. A main-actor class conforms on the main actor:
/// `extension ProfileViewController: @MainActor Subscribing {}`. On platforms with UIKit,
/// `UIViewController` and `UIView` conformers prefer the main thread by default. On Linux, the
/// main queue runs only while the program services it: an async `main`, `dispatchMain()` or
/// `RunLoop.main`.
///
/// > Thread safety: The `subscribe` methods read and write ``cancellables``, which is ordinary
/// > state of the object: call them where the object's state may be used (for a main-actor
/// > class, on the main actor). Events may be sent from any thread.
public protocol Subscribing {
  /// The subscriptions made by the `subscribe` methods; they last as long as they stay in the
  /// set.
  var cancellables: Set<AnyCancellable> { get set }

  /// Whether ``subscribe(to:performing:)-(ObservableEvent<T>,_)`` delivers on the main queue
  /// (`true`) or on the sender's thread (`false`).
  var prefersMainThreadExecution: Bool { get }
}

extension Subscribing where Self: AnyObject {
  /// Subscribes to an event, delivering on the main queue or on the sender's thread as
  /// ``prefersMainThreadExecution`` says.
  ///
  /// ```swift
  /// subscribe(to: combobulator.flubberBatchName) { [weak self] name in
  ///   self?.updateBatchName(to: name)
  /// }
  /// ```
  ///
  /// The choice is made once, now. An event delivers only the values sent after this call.
  /// The subscription is kept in ``cancellables``; capture `self` weakly in `action`.
  ///
  /// > Thread safety: Call it where ``cancellables`` may be written. See ``Subscribing``.
  ///
  /// - Parameters:
  ///   - event: The event to subscribe to.
  ///   - action: Called with each value.
  public func subscribe<T>(to event: ObservableEvent<T>, performing action: @escaping (T) -> Void) {
    if prefersMainThreadExecution {
      subscribeOnMain(to: event, performing: action)
    } else {
      subscribeOnSenderThread(to: event, performing: action)
    }
  }

  /// Subscribes to a stream, delivering on the main queue or on the sender's thread as
  /// ``prefersMainThreadExecution`` says.
  ///
  /// ```swift
  /// subscribe(to: combobulator.flubberCount) { [weak self] count in
  ///   self?.updateFlubberCount(to: count)
  /// }
  /// ```
  ///
  /// The choice is made once, now. The stream's current value is delivered at once (on main,
  /// one main-queue turn later), then each later value. The subscription is kept in
  /// ``cancellables``; capture `self` weakly in `action`.
  ///
  /// > Thread safety: Call it where ``cancellables`` may be written. See ``Subscribing``.
  ///
  /// - Parameters:
  ///   - stream: The stream to subscribe to.
  ///   - action: Called with the current value, then with each later value.
  public func subscribe<T>(to stream: ObservableStream<T>, performing action: @escaping (T) -> Void)
  {
    if prefersMainThreadExecution {
      subscribeOnMain(to: stream, performing: action)
    } else {
      subscribeOnSenderThread(to: stream, performing: action)
    }
  }

  /// Subscribes to an event with a method of this object, which is held weakly.
  ///
  /// ```swift
  /// subscribe(to: combobulator.flubberBatchName, calling: FlubberDisplay.updateBatchName(to:))
  /// ```
  ///
  /// Routes as ``subscribe(to:performing:)-(ObservableEvent<T>,_)``. The subscription holds
  /// `self` weakly, so it creates no retain cycle; once the object is gone, values are
  /// ignored. Not in Shuttle, whose `performing: refresh` captured `self` strongly.
  ///
  /// Name the method through the class, `FlubberDisplay.refresh`: inside a class, `Self.refresh`
  /// has the dynamic `Self` type and does not convert.
  ///
  /// > Thread safety: Call it where ``cancellables`` may be written. See ``Subscribing``.
  ///
  /// - Parameters:
  ///   - event: The event to subscribe to.
  ///   - method: An unapplied method of `Self`, called on this object with each value.
  public func subscribe<T>(
    to event: ObservableEvent<T>,
    calling method: @escaping (Self) -> (T) -> Void
  ) {
    subscribe(to: event, performing: weaklyCalling(method))
  }

  /// Subscribes to an event without a payload with a method of this object, which is held
  /// weakly.
  ///
  /// ```swift
  /// subscribe(to: combobulator.refreshEvent, calling: FlubberDisplay.refresh)
  /// ```
  ///
  /// The same as ``subscribe(to:calling:)-(ObservableEvent<T>,_)``, for a method that takes no
  /// argument. Not in Shuttle.
  ///
  /// > Thread safety: Call it where ``cancellables`` may be written. See ``Subscribing``.
  ///
  /// - Parameters:
  ///   - event: The event to subscribe to.
  ///   - method: An unapplied method of `Self` without arguments, called on this object for
  ///     each event.
  public func subscribe(to event: AnonymousEvent, calling method: @escaping (Self) -> () -> Void) {
    subscribe(to: event, performing: weaklyCalling { object in { _ in method(object)() } })
  }

  /// Subscribes to a stream with a method of this object, which is held weakly.
  ///
  /// ```swift
  /// subscribe(to: combobulator.flubberCount, calling: FlubberDisplay.updateFlubberCount(to:))
  /// ```
  ///
  /// Routes as ``subscribe(to:performing:)-(ObservableStream<T>,_)``, so the current value is
  /// delivered at once. The subscription holds `self` weakly, so it creates no retain cycle;
  /// once the object is gone, values are ignored. Not in Shuttle.
  ///
  /// > Thread safety: Call it where ``cancellables`` may be written. See ``Subscribing``.
  ///
  /// - Parameters:
  ///   - stream: The stream to subscribe to.
  ///   - method: An unapplied method of `Self`, called on this object with each value.
  public func subscribe<T>(
    to stream: ObservableStream<T>,
    calling method: @escaping (Self) -> (T) -> Void
  ) {
    subscribe(to: stream, performing: weaklyCalling(method))
  }

  /// Subscribes to an event and calls `action` synchronously on the thread that sends.
  ///
  /// ```swift
  /// subscribeOnSenderThread(to: combobulator.refreshEvent) { [weak self] in self?.reload() }
  /// combobulator.refreshEvent.send()  // reload() has run when send returns
  /// ```
  ///
  /// `action` runs inside `send`, before it returns; a `send` from inside `action` is delivered
  /// re-entrantly. When several threads send at once, a value sent while `action` runs for
  /// another thread's value is queued instead: its `send` returns at once, and `action` runs
  /// for it right after, on that other thread. Only values sent after this call are delivered.
  /// The subscription is kept in ``cancellables``; capture `self` weakly in `action`.
  ///
  /// > Thread safety: Call it where ``cancellables`` may be written. `action` runs on each
  /// > sender's thread, one value at a time.
  ///
  /// - Parameters:
  ///   - event: The event to subscribe to.
  ///   - action: Called with each value, on the sending thread.
  public func subscribeOnSenderThread<T>(
    to event: ObservableEvent<T>,
    performing action: @escaping (T) -> Void
  ) {
    keep(event.sink(receiveValue: action))
  }

  /// Subscribes to a stream and calls `action` synchronously on the thread that sends.
  ///
  /// ```swift
  /// subscribeOnSenderThread(to: combobulator.flubberCount) { [weak self] count in
  ///   self?.show(count)
  /// }  // show(current count) has already run here
  /// ```
  ///
  /// The current value is delivered at once, inside this call; later values inside each `send`
  /// or `value` assignment. The subscription is kept in ``cancellables``; capture `self`
  /// weakly in `action`.
  ///
  /// > Thread safety: Call it where ``cancellables`` may be written. `action` runs on each
  /// > sender's thread, one value at a time.
  ///
  /// - Parameters:
  ///   - stream: The stream to subscribe to.
  ///   - action: Called with the current value, then with each later value, on the sending
  ///     thread.
  public func subscribeOnSenderThread<T>(
    to stream: ObservableStream<T>,
    performing action: @escaping (T) -> Void
  ) {
    keep(stream.sink(receiveValue: action))
  }

  /// Subscribes to an event and calls `action` on the main queue, always asynchronously.
  ///
  /// ```swift
  /// subscribeOnMain(to: combobulator.flubberBatchName) { [weak self] name in
  ///   self?.titleLabel.text = name  // on the main thread
  /// }
  /// ```
  ///
  /// Each value is scheduled with `DispatchQueue.main.async`, even when it is sent on the main
  /// thread, and values arrive in the order they were sent. Values still on their way when
  /// the subscription is cancelled are dropped. The subscription is kept in ``cancellables``;
  /// capture `self` weakly in `action`.
  ///
  /// > Thread safety: Call it where ``cancellables`` may be written. `action` runs on the main
  /// > queue, so it may use main-actor state through `MainActor.assumeIsolated`. Each value
  /// > crosses to the main thread: send values that are `Sendable`, or that nobody mutates
  /// > afterwards.
  ///
  /// - Parameters:
  ///   - event: The event to subscribe to.
  ///   - action: Called with each value, on the main queue.
  public func subscribeOnMain<T>(
    to event: ObservableEvent<T>,
    performing action: @escaping (T) -> Void
  ) {
    let delivery = MainQueueDelivery(action)
    event.subscribe(delivery)
    keep(AnyCancellable(delivery))
  }

  /// Subscribes to a stream and calls `action` on the main queue, always asynchronously.
  ///
  /// ```swift
  /// subscribeOnMain(to: combobulator.flubberCount) { [weak self] count in
  ///   self?.countLabel.text = "\(count)"  // on the main thread
  /// }
  /// ```
  ///
  /// The current value is scheduled at once, then each later value, in order, with
  /// `DispatchQueue.main.async`, even when sent on the main thread. Values still on their way
  /// when the subscription is cancelled are dropped. The subscription is kept in
  /// ``cancellables``; capture `self` weakly in `action`.
  ///
  /// > Thread safety: Call it where ``cancellables`` may be written. `action` runs on the main
  /// > queue, so it may use main-actor state through `MainActor.assumeIsolated`. Each value
  /// > crosses to the main thread: send values that are `Sendable`, or that nobody mutates
  /// > afterwards.
  ///
  /// - Parameters:
  ///   - stream: The stream to subscribe to.
  ///   - action: Called with the current value, then with each later value, on the main queue.
  public func subscribeOnMain<T>(
    to stream: ObservableStream<T>,
    performing action: @escaping (T) -> Void
  ) {
    let delivery = MainQueueDelivery(action)
    stream.subscribe(delivery)
    keep(AnyCancellable(delivery))
  }

  /// Inserts `cancellable` into ``cancellables``. The requirement's setter counts as mutating
  /// (the protocol is not class-bound); on a class it writes through the reference.
  private func keep(_ cancellable: AnyCancellable) {
    var object = self
    object.cancellables.insert(cancellable)
  }

  /// Wraps `method` in a closure that holds this object weakly.
  private func weaklyCalling<T>(_ method: @escaping (Self) -> (T) -> Void) -> (T) -> Void {
    { [weak self] value in
      guard let self else { return }
      method(self)(value)
    }
  }
}

/// The message of the `subscribe` methods on a value type.
private let valueTypeMessage = """
  Subscribing's subscribe methods need a class, as in Shuttle: the subscription is stored in \
  `cancellables` and runs later, possibly on another thread, which a struct's or enum's copies \
  can't share safely. Make the conformer a class, or use `sink` and store the AnyCancellable.
  """

extension Subscribing {
  /// Unavailable on a value type: ``Subscribing``'s methods need a class, as in Shuttle.
  ///
  /// > Thread safety: Not callable.
  ///
  /// - Parameters:
  ///   - event: The event.
  ///   - action: The action.
  @available(
    *,
    unavailable,
    message:
      "Subscribing's subscribe methods need a class, as in Shuttle: the subscription is stored in `cancellables` and runs later, possibly on another thread, which a struct's or enum's copies can't share safely. Make the conformer a class, or use `sink` and store the AnyCancellable."
  )
  public func subscribe<T>(to event: ObservableEvent<T>, performing action: @escaping (T) -> Void) {
    fatalError(valueTypeMessage)
  }

  /// Unavailable on a value type: ``Subscribing``'s methods need a class, as in Shuttle.
  ///
  /// > Thread safety: Not callable.
  ///
  /// - Parameters:
  ///   - stream: The stream.
  ///   - action: The action.
  @available(
    *,
    unavailable,
    message:
      "Subscribing's subscribe methods need a class, as in Shuttle: the subscription is stored in `cancellables` and runs later, possibly on another thread, which a struct's or enum's copies can't share safely. Make the conformer a class, or use `sink` and store the AnyCancellable."
  )
  public func subscribe<T>(to stream: ObservableStream<T>, performing action: @escaping (T) -> Void)
  {
    fatalError(valueTypeMessage)
  }

  /// Unavailable on a value type: ``Subscribing``'s methods need a class, as in Shuttle.
  ///
  /// > Thread safety: Not callable.
  ///
  /// - Parameters:
  ///   - event: The event.
  ///   - action: The action.
  @available(
    *,
    unavailable,
    message:
      "Subscribing's subscribe methods need a class, as in Shuttle: the subscription is stored in `cancellables` and runs later, possibly on another thread, which a struct's or enum's copies can't share safely. Make the conformer a class, or use `sink` and store the AnyCancellable."
  )
  public func subscribeOnSenderThread<T>(
    to event: ObservableEvent<T>,
    performing action: @escaping (T) -> Void
  ) {
    fatalError(valueTypeMessage)
  }

  /// Unavailable on a value type: ``Subscribing``'s methods need a class, as in Shuttle.
  ///
  /// > Thread safety: Not callable.
  ///
  /// - Parameters:
  ///   - stream: The stream.
  ///   - action: The action.
  @available(
    *,
    unavailable,
    message:
      "Subscribing's subscribe methods need a class, as in Shuttle: the subscription is stored in `cancellables` and runs later, possibly on another thread, which a struct's or enum's copies can't share safely. Make the conformer a class, or use `sink` and store the AnyCancellable."
  )
  public func subscribeOnSenderThread<T>(
    to stream: ObservableStream<T>,
    performing action: @escaping (T) -> Void
  ) {
    fatalError(valueTypeMessage)
  }

  /// Unavailable on a value type: ``Subscribing``'s methods need a class, as in Shuttle.
  ///
  /// > Thread safety: Not callable.
  ///
  /// - Parameters:
  ///   - event: The event.
  ///   - action: The action.
  @available(
    *,
    unavailable,
    message:
      "Subscribing's subscribe methods need a class, as in Shuttle: the subscription is stored in `cancellables` and runs later, possibly on another thread, which a struct's or enum's copies can't share safely. Make the conformer a class, or use `sink` and store the AnyCancellable."
  )
  public func subscribeOnMain<T>(
    to event: ObservableEvent<T>,
    performing action: @escaping (T) -> Void
  ) {
    fatalError(valueTypeMessage)
  }

  /// Unavailable on a value type: ``Subscribing``'s methods need a class, as in Shuttle.
  ///
  /// > Thread safety: Not callable.
  ///
  /// - Parameters:
  ///   - stream: The stream.
  ///   - action: The action.
  @available(
    *,
    unavailable,
    message:
      "Subscribing's subscribe methods need a class, as in Shuttle: the subscription is stored in `cancellables` and runs later, possibly on another thread, which a struct's or enum's copies can't share safely. Make the conformer a class, or use `sink` and store the AnyCancellable."
  )
  public func subscribeOnMain<T>(
    to stream: ObservableStream<T>,
    performing action: @escaping (T) -> Void
  ) {
    fatalError(valueTypeMessage)
  }
}

#if canImport(UIKit)
extension Subscribing where Self: UIViewController {
  /// `true`: view controllers receive events on the main queue by default.
  public var prefersMainThreadExecution: Bool { true }
}

extension Subscribing where Self: UIView {
  /// `true`: views receive events on the main queue by default.
  public var prefersMainThreadExecution: Bool { true }
}
#endif

/// The subscriber behind `subscribeOnMain`: requests unlimited values and hands each one, in
/// order, to the main queue, where it calls `action` unless it has been cancelled meanwhile.
///
/// ```
/// awaitingSubscription --receive(subscription:)--> subscribed
/// subscribed --receive(completion:), once the main queue reaches it--> closed
/// awaitingSubscription / subscribed --cancel()--> closed
/// ```
///
/// `receive(_:)` and `receive(completion:)` schedule onto the main queue in the order the
/// subject calls them, and the main queue is serial, so values keep their order and the
/// completion follows them.
// Sendable: `state` is only reached under `lock`. `action` is called outside the lock and only
// on the main queue, which runs one block at a time. Values cross through `MainQueueHandoff`.
private final class MainQueueDelivery<Input>: Subscriber, Cancellable, @unchecked Sendable {
  typealias Failure = Never

  private enum State {
    case awaitingSubscription((Input) -> Void)
    case subscribed(any Subscription, (Input) -> Void)
    case closed
  }

  private let lock = Lock()
  private var state: State

  init(_ action: @escaping (Input) -> Void) {
    state = .awaitingSubscription(action)
  }

  func receive(subscription: any Subscription) {
    let accepted = lock.withLock { () -> Bool in
      guard case .awaitingSubscription(let action) = state else { return false }
      state = .subscribed(subscription, action)
      return true
    }
    if accepted {
      subscription.request(.unlimited)
    } else {
      subscription.cancel()
    }
  }

  func receive(_ input: Input) -> Subscribers.Demand {
    let handoff = MainQueueHandoff(input)
    DispatchQueue.main.schedule { self.deliver(handoff.value) }
    return .none
  }

  func receive(completion: Subscribers.Completion<Never>) {
    DispatchQueue.main.schedule { self.close() }
  }

  func cancel() {
    if case .subscribed(let subscription, _) = close() {
      subscription.cancel()
    }
  }

  /// On the main queue: calls `action` if the subscription is still live.
  private func deliver(_ value: Input) {
    let action = lock.withLock { () -> ((Input) -> Void)? in
      guard case .subscribed(_, let action) = state else { return nil }
      return action
    }
    action?(value)
  }

  /// Moves to `closed`, releasing the subscription and `action`, and returns the old state.
  @discardableResult
  private func close() -> State {
    lock.withLock {
      defer { state = .closed }
      return state
    }
  }
}

/// Carries a value from the sending thread to the main queue.
// Sendable: the subject hands the value to the main queue, and StreamKit does not touch it on
// the sending side afterwards; `subscribeOnMain` documents that values should be `Sendable` or
// left unmutated once sent, as with Combine's `receive(on:)`.
private struct MainQueueHandoff<Value>: @unchecked Sendable {
  let value: Value

  init(_ value: Value) {
    self.value = value
  }
}
