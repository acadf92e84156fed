/// A subject that broadcasts elements to downstream subscribers.
///
/// ```swift
/// let taps = PassthroughSubject<Int, Never>()
/// let cancellable = taps.sink { print("tap", $0) }
/// taps.send(1)                    // prints "tap 1"
/// taps.send(completion: .finished)
/// ```
///
/// Unlike ``CurrentValueSubject``, it has no initial value and keeps nothing: a value sent while a
/// subscriber has no outstanding demand is dropped for that subscriber. A subscriber that
/// arrives after the completion receives the completion at once. Each subscription describes
/// itself as `"PassthroughSubject"`.
///
/// > Thread safety: `send` may be called from any thread. A value is delivered on the thread
/// > that sends it, and `send` returns once every subscriber that had demand for it has
/// > received it. A `send` from inside a subscriber is delivered to it at once, re-entrantly;
/// > one from another thread waits until the subscriber returns, as in Combine (so a subscriber
/// > that, inside `receive(_:)`, waits for another thread that sends to it deadlocks).
// Sendable: all state lives in `core`, which guards it with a lock.
public final class PassthroughSubject<Output, Failure: Error>: Subject, @unchecked Sendable {
  @usableFromInline
  let core: SubjectCore<Output, Failure>

  /// Creates a subject with no subscribers.
  public init() {
    core = SubjectCore(name: "PassthroughSubject", current: nil, keepsLatest: false)
  }

  deinit {
    core.cancelUpstreams()
  }

  /// Sends a value to each subscriber that has demand for it.
  ///
  /// Delivered on this thread before `send` returns. A subscriber without demand at this moment
  /// doesn't receive it.
  ///
  /// - Parameter input: The value to send.
  @inlinable
  public func send(_ input: Output) {
    core.send(input)
  }

  /// Sends the completion to every subscriber, once; later values and completions are ignored.
  ///
  /// - Parameter completion: How the subject ends.
  public func send(completion: Subscribers.Completion<Failure>) {
    core.send(completion: completion)
  }

  /// Keeps an upstream subscription, and requests unlimited values from it once one of this
  /// subject's subscribers has demand (at once if one already had), as Combine does: what the
  /// upstream sends first (a `CurrentValueSubject`'s value) isn't lost for lack of subscribers.
  ///
  /// The subscription is dropped when its upstream completes or is cancelled.
  ///
  /// - Parameter subscription: The upstream subscription.
  public func send(subscription: any Subscription) {
    core.send(subscription: subscription)
  }

  /// Attaches a subscriber.
  @inlinable
  public func receive<S: Subscriber>(subscriber: S) where Output == S.Input, Failure == S.Failure {
    core.subscribe(subscriber)
  }
}

extension PassthroughSubject: UpstreamReleasingSubject {
  package func releaseUpstream(_ subscription: any Subscription) {
    core.releaseUpstream(subscription)
  }
}
