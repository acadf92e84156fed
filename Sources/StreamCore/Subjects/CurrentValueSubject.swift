/// A subject that wraps a single value and publishes a new element whenever the value changes.
///
/// ```swift
/// let volume = CurrentValueSubject<Int, Never>(5)
/// let cancellable = volume.sink { print("volume", $0) }  // prints "volume 5"
/// volume.value = 7                                       // prints "volume 7"
/// ```
///
/// Each new subscriber receives the current value as soon as it requests a value. A value sent
/// while a subscriber has no demand is kept for it (only the latest), and delivered when it
/// next requests. After the completion, ``value`` can still be read and set, but nothing is
/// sent; a late subscriber receives only the completion. Each subscription describes itself as
/// `"CurrentValueSubject"`.
///
/// > Thread safety: As ``PassthroughSubject``: `send` and ``value`` from any thread, one thread
/// > delivering at a time, re-entrant sends delivered re-entrantly, and a send from another
/// > thread meanwhile handed to the delivering thread.
// Sendable: all state lives in `core`, which guards it with a lock.
public final class CurrentValueSubject<Output, Failure: Error>: Subject, @unchecked Sendable {
  @usableFromInline
  let core: SubjectCore<Output, Failure>

  /// The value wrapped by this subject, published as a new element whenever it changes.
  ///
  /// Setting it is the same as calling ``send(_:)``.
  public var value: Output {
    get { core.currentValue }
    set { send(newValue) }
  }

  /// Creates a current value subject with the given initial value.
  ///
  /// - Parameter value: The initial value to publish.
  public init(_ value: Output) {
    core = SubjectCore(name: "CurrentValueSubject", current: value, keepsLatest: true)
  }

  /// The subject behind a `@Published` property: its subscriptions describe themselves as
  /// `"PublishedSubject"`, and the subject as `PublishedSubject<Value>`, as Combine's do.
  ///
  /// > Thread safety: As ``init(_:)``.
  ///
  /// - Parameter value: The property's initial value.
  package init(publishedValue value: Output) {
    core = SubjectCore(
      name: "PublishedSubject",
      current: value,
      keepsLatest: true,
      namesFailure: false
    )
  }

  deinit {
    core.cancelUpstreams()
  }

  /// Makes `input` the current value and sends it to the subscribers. After completion it still
  /// becomes the current value, as in Combine, but nothing is sent.
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

extension CurrentValueSubject {
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

extension CurrentValueSubject where Failure == Never {
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
