/// A subject that wraps a single value and publishes a new element whenever the value changes.
///
/// ```swift
/// let volume = CurrentValueSubject<Int, Never>(5)
/// let cancellable = volume.sink { print("volume", $0) }  // prints "volume 5"
/// volume.value = 7                                       // prints "volume 7"
/// ```
///
/// Each new subscriber receives the current value as soon as it requests a value. A subscriber
/// that misses a value for lack of demand receives the subject's value (the latest) when it
/// next requests. After the completion, ``send(_:)`` is ignored and setting ``value`` changes
/// the value without sending it, as in Combine; a late subscriber receives only the completion.
/// Each subscription describes itself as `"CurrentValueSubject"`.
///
/// > Thread safety: As ``PassthroughSubject``: `send` and ``value`` from any thread; a value is
/// > delivered on the thread that sends it, a send from inside a subscriber re-entrantly, and a
/// > send from another thread waits for a subscriber that is busy.
// Sendable: all state lives in `core`, which guards it with a lock.
public final class CurrentValueSubject<Output, Failure: Error>: Subject, @unchecked Sendable {
  @usableFromInline
  let core: SubjectCore<Output, Failure>

  /// The value wrapped by this subject, published as a new element whenever it changes.
  ///
  /// Setting it is the same as calling ``send(_:)``, except that after the completion the value
  /// still changes (and isn't sent), as in Combine.
  public var value: Output {
    get { core.currentValue }
    set { core.send(newValue, storingAfterEnd: true) }
  }

  /// Creates a current value subject with the given initial value.
  ///
  /// - Parameter value: The initial value to publish.
  public init(_ value: Output) {
    core = SubjectCore(name: "CurrentValueSubject", current: value, keepsLatest: true)
  }

  /// The subject behind a `@Published` property: its subscriptions describe themselves as
  /// `"PublishedSubject"`, and the subject as `PublishedSubject<Value>`, as Combine's do. A sent
  /// value becomes ``value`` after it was delivered, as the property's storage changes after
  /// its `willSet`.
  ///
  /// > Thread safety: As ``init(_:)``.
  ///
  /// - Parameter value: The property's initial value.
  package init(publishedValue value: Output) {
    core = SubjectCore(
      name: "PublishedSubject",
      current: value,
      keepsLatest: true,
      storesAfterDelivery: true,
      namesFailure: false
    )
  }

  deinit {
    core.cancelUpstreams()
  }

  /// Makes `input` the current value and sends it, on this thread, to each subscriber with
  /// demand; returns once they have received it. Ignored after the completion, as in Combine
  /// (``value``'s setter still stores it).
  ///
  /// - Parameter input: The new value.
  @inlinable
  public func send(_ input: Output) {
    core.send(input)
  }

  /// Sends the completion to every subscriber, once.
  ///
  /// - Parameter completion: How the subject ends.
  public func send(completion: Subscribers.Completion<Failure>) {
    core.send(completion: completion)
  }

  /// Keeps an upstream subscription and requests unlimited values from it at once, as Combine
  /// does: the subject keeps what it receives as its current value.
  ///
  /// The subscription is dropped when its upstream completes or is cancelled.
  ///
  /// - Parameter subscription: The upstream subscription.
  public func send(subscription: any Subscription) {
    core.send(subscription: subscription)
  }

  /// Attaches a subscriber, which receives the current value on its first demand.
  @inlinable
  public func receive<S: Subscriber>(subscriber: S) where Output == S.Input, Failure == S.Failure {
    core.subscribe(subscriber)
  }
}

extension CurrentValueSubject: UpstreamReleasingSubject {
  package func releaseUpstream(_ subscription: any Subscription) {
    core.releaseUpstream(subscription)
  }
}
