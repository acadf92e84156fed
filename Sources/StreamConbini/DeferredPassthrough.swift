import FutureKit
import SignalOperators
public import StreamCore

/// A publisher that gives each subscription its own `PassthroughSubject`, already wired to the
/// subscriber, and hands it to a closure when the subscriber first asks for a value.
///
/// ```swift
/// let progress = DeferredPassthrough<Double, DownloadError> { subject in
///   subject.send(0)
///   downloader.start(
///     onProgress: { subject.send($0) },
///     onEnd: { error in subject.send(completion: error.map { .failure($0) } ?? .finished) }
///   )
/// }
/// ```
///
/// When a subscriber subscribes, a new subject is created and the subscription to it is set up
/// before anything else. On the subscriber's first `request(_:)` with positive demand, the
/// demand is passed to the subject first, and then ``closure`` runs with the subject,
/// synchronously, on the requesting thread; so values the closure sends at once are delivered
/// at once, within the demand. Later requests go straight to the subject. ``closure`` runs once
/// per subscription, and every new subscriber gets a new subject and runs it again. Subscribing
/// runs nothing, and a subscription cancelled before its first request never runs the closure.
///
/// The subject behaves as any `PassthroughSubject`: a value sent while the subscriber has no
/// demand is dropped, and the completion is delivered whatever the demand. **The stream never
/// completes unless the closure, or whatever it hands the subject to, sends a completion.**
/// Cancelling the subscription detaches it from the subject; later sends go nowhere.
///
/// After the closure has run, the subscription lets go of the closure and the subject; the
/// subject lives on for as long as the closure's captures (say, a callback) keep it. The
/// publisher itself keeps the closure for as long as it exists. Its subscription's description
/// is `"DeferredPassthrough"`.
///
/// > Thread safety: A `Sendable` value type; `subscribe` may be called from any thread. The
/// > closure is `@Sendable`: a subscription's first request may come from any thread, so two
/// > subscriptions of one publisher can run it at the same time. The subject may be sent to
/// > from any thread, with `PassthroughSubject`'s guarantees. `request(_:)` and `cancel()` are
/// > safe from any thread, and no lock is held while the closure or the subscriber runs.
public struct DeferredPassthrough<Output, Failure: Error>: Publisher {
  /// The closure handed each subscription's subject, run once per subscription.
  public let closure: @Sendable (PassthroughSubject<Output, Failure>) -> Void

  /// Creates a publisher that runs `setup` with a new, already subscribed subject on each
  /// subscription's first positive request.
  ///
  /// ```swift
  /// let countdown = DeferredPassthrough<Int, Never> { subject in
  ///   for n in (1...3).reversed() { subject.send(n) }
  ///   subject.send(completion: .finished)
  /// }
  /// ```
  ///
  /// - Parameter setup: Sends into the subject, or hands it on to whatever will.
  public init(_ setup: @escaping @Sendable (PassthroughSubject<Output, Failure>) -> Void) {
    closure = setup
  }

  /// Creates a subject for `subscriber`, subscribes to it, and hands `subscriber` a subscription
  /// that runs ``closure`` with the subject on its first positive request.
  ///
  /// - Parameter subscriber: The subscriber to attach to this publisher.
  public func receive<S: Subscriber>(subscriber: S)
  where S.Input == Output, S.Failure == Failure {
    let subject = PassthroughSubject<Output, Failure>()
    let inner = Inner(downstream: subscriber, closure: closure, subject: subject)
    subject.subscribe(inner)  // wired in first: the subject's subscription arrives synchronously
    subscriber.receive(subscription: inner)
  }
}

extension DeferredPassthrough: Sendable {}

extension DeferredPassthrough {
  /// Subscribes to the subject on the subscriber's behalf: forwards demand and cancel to the
  /// subject, values and the completion to the subscriber, and runs the closure on the first
  /// positive request.
  // Sendable: all mutable state is in `state`, guarded by `lock`. The closure runs once, outside
  // the lock; the subject's subscription calls `receive` one call at a time.
  private final class Inner<Downstream: Subscriber>: @unchecked Sendable, Subscriber,
    Subscription, CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible
  where Downstream.Input == Output, Downstream.Failure == Failure {
    typealias Input = Output

    /// ```
    /// active (setup kept) --request(_:)--> active (setup taken; demand, then the closure)
    /// active --subject's completion / cancel()--> terminal
    /// ```
    private enum State {
      case active(Active)
      case terminal
    }

    private struct Active {
      var downstream: Downstream
      /// The subject's subscription; it arrives inside `subject.subscribe`, before the
      /// subscriber sees this subscription.
      var upstream: (any Subscription)?
      /// The closure and its subject, until the first positive request takes them.
      var setup: Setup?
    }

    private struct Setup {
      let closure: @Sendable (PassthroughSubject<Output, Failure>) -> Void
      let subject: PassthroughSubject<Output, Failure>
    }

    private let lock = Lock()
    private var state: State

    init(
      downstream: Downstream,
      closure: @escaping @Sendable (PassthroughSubject<Output, Failure>) -> Void,
      subject: PassthroughSubject<Output, Failure>
    ) {
      state = .active(
        Active(downstream: downstream, setup: Setup(closure: closure, subject: subject))
      )
    }

    // MARK: Subscriber, facing the subject

    func receive(subscription: any Subscription) {
      let accepted = lock.withLock { () -> Bool in
        guard case .active(var active) = state, active.upstream == nil else { return false }
        active.upstream = subscription
        state = .active(active)
        return true
      }
      if !accepted { subscription.cancel() }
    }

    func receive(_ input: Output) -> Subscribers.Demand {
      let downstream = lock.withLock { () -> Downstream? in
        guard case .active(let active) = state else { return nil }  // cancelled meanwhile
        return active.downstream
      }
      return downstream?.receive(input) ?? .none
    }

    func receive(completion: Subscribers.Completion<Failure>) {
      let released = lock.withLock { () -> Active? in
        guard case .active(let active) = state else { return nil }
        state = .terminal
        return active
      }
      released?.downstream.receive(completion: completion)
    }

    // MARK: Subscription, facing the subscriber

    func request(_ demand: Subscribers.Demand) {
      demand.assertPositive()
      let (upstream, setup) = lock.withLock { () -> ((any Subscription)?, Setup?) in
        guard case .active(var active) = state else { return (nil, nil) }
        let setup = active.setup
        if setup != nil {
          active.setup = nil
          state = .active(active)
        }
        return (active.upstream, setup)
      }
      upstream?.request(demand)  // the demand first, so the closure's sends are delivered
      if let setup { setup.closure(setup.subject) }
    }

    func cancel() {
      let released = lock.withLock { () -> Active? in
        guard case .active(let active) = state else { return nil }
        state = .terminal
        return active
      }
      released?.upstream?.cancel()
    }

    var description: String { "DeferredPassthrough" }

    var customMirror: Mirror { Mirror(self, children: [:]) }

    var playgroundDescription: Any { description }
  }
}
