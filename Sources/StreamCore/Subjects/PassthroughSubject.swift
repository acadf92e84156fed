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
/// > Thread safety: `send` may be called from any thread. One thread at a time delivers: a
/// > `send` from inside a subscriber is delivered re-entrantly, and one from another thread
/// > while a delivery is under way is queued, with the subscribers of that moment, and delivered
/// > by the thread already delivering, right after; the sender doesn't wait.
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
  /// Delivered before `send` returns, unless another thread is delivering to this subject's
  /// subscribers: then the value is handed to that thread, which delivers it (after the values
  /// handed to it before) before its own `send` returns.
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

extension PassthroughSubject {
  /// Attaches a subscriber with closure-based behavior, as `Publisher`'s `sink` does: it
  /// requests unlimited values, and the returned token cancels the subscription.
  ///
  /// Cheaper than the general `sink`: the subject's own subscription calls the closures, so
  /// attaching takes one allocation fewer.
  ///
  /// > Thread safety: As `send`: may be called from any thread; the closures are never called
  /// > from two threads at once.
  ///
  /// - Parameters:
  ///   - receiveCompletion: The closure to execute on completion.
  ///   - receiveValue: The closure to execute on receipt of a value.
  /// - Returns: A cancellable that cancels the subscription.
  @inlinable
  public func sink(
    receiveCompletion: @escaping (Subscribers.Completion<Failure>) -> Void,
    receiveValue: @escaping (Output) -> Void
  ) -> AnyCancellable {
    core.sink(receiveCompletion: receiveCompletion, receiveValue: receiveValue)
  }
}

extension PassthroughSubject where Failure == Never {
  /// Attaches a subscriber with closure-based behavior to a subject that never fails, as
  /// `Publisher`'s `sink(receiveValue:)` does, with one allocation fewer.
  ///
  /// > Thread safety: As `send`: may be called from any thread; the closure is never called
  /// > from two threads at once.
  ///
  /// - Parameter receiveValue: The closure to execute on receipt of a value.
  /// - Returns: A cancellable that cancels the subscription.
  @inlinable
  public func sink(receiveValue: @escaping (Output) -> Void) -> AnyCancellable {
    core.sink(receiveCompletion: { _ in }, receiveValue: receiveValue)
  }
}
