/// A type-erasing subscriber.
///
/// ```swift
/// let subscriber = AnySubscriber<Int, Never>(
///   receiveSubscription: { $0.request(.unlimited) },
///   receiveValue: { print($0); return .none },
///   receiveCompletion: { print($0) }
/// )
/// [1, 2].publisher.subscribe(subscriber)
/// ```
///
/// Wrapping an `AnySubscriber` again reuses its box, and the wrapper keeps the wrapped
/// subscriber's ``combineIdentifier`` and description. Closure-based subscribers describe
/// themselves as `"Anonymous AnySubscriber"`.
///
/// > Thread safety: As safe as the wrapped subscriber.
public struct AnySubscriber<Input, Failure: Error>: Subscriber, CustomStringConvertible,
  CustomReflectable, CustomPlaygroundDisplayConvertible
{
  @usableFromInline
  let box: SubscriberBoxBase<Input, Failure>

  /// The wrapped subscriber's identifier, or a new one for closure-based subscribers.
  public let combineIdentifier: CombineIdentifier

  /// Creates a type-erasing subscriber to wrap an existing subscriber.
  ///
  /// - Parameter s: The subscriber to type-erase.
  public init<S: Subscriber>(_ s: S) where Input == S.Input, Failure == S.Failure {
    if let erased = s as? AnySubscriber<Input, Failure> {
      self = erased
    } else {
      box = SubscriberBox(s)
      combineIdentifier = s.combineIdentifier
    }
  }

  /// Creates a type-erasing subscriber that forwards everything to a subject.
  ///
  /// As `subscribe(_:)` with a subject: the subject is sent a subscription described as
  /// `"Subject"`, which passes its requests to the upstream's; values are sent with `send(_:)`
  /// and return no further demand, and nothing reaches the subject after the completion.
  ///
  /// - Parameter s: The subject to forward to.
  public init<S: Subject>(_ s: S) where Input == S.Output, Failure == S.Failure {
    self.init(SubjectSubscriber(s))
  }

  /// Creates a type-erasing subscriber that executes the provided closures.
  ///
  /// - Parameters:
  ///   - receiveSubscription: Runs when the subscriber receives its subscription.
  ///   - receiveValue: Runs for each value; returns the additional demand.
  ///   - receiveCompletion: Runs on completion.
  public init(
    receiveSubscription: ((any Subscription) -> Void)? = nil,
    receiveValue: ((Input) -> Subscribers.Demand)? = nil,
    receiveCompletion: ((Subscribers.Completion<Failure>) -> Void)? = nil
  ) {
    box = ClosureSubscriberBox(
      receiveSubscription: receiveSubscription,
      receiveValue: receiveValue,
      receiveCompletion: receiveCompletion
    )
    combineIdentifier = CombineIdentifier()
  }

  /// Forwards the subscription.
  @inlinable
  public func receive(subscription: any Subscription) {
    box.receive(subscription: subscription)
  }

  /// Forwards the value and returns the wrapped subscriber's demand.
  @inlinable
  public func receive(_ value: Input) -> Subscribers.Demand {
    box.receive(value)
  }

  /// Forwards the completion.
  @inlinable
  public func receive(completion: Subscribers.Completion<Failure>) {
    box.receive(completion: completion)
  }

  /// The wrapped subscriber's description.
  public var description: String { box.description }

  /// The wrapped subscriber's mirror.
  public var customMirror: Mirror { box.customMirror }

  /// The description.
  public var playgroundDescription: Any { description }
}

@usableFromInline
class SubscriberBoxBase<Input, Failure: Error> {
  @usableFromInline
  func receive(subscription: any Subscription) {
    preconditionFailure("SubscriberBoxBase.receive(subscription:) must be overridden")
  }

  @usableFromInline
  func receive(_ value: Input) -> Subscribers.Demand {
    preconditionFailure("SubscriberBoxBase.receive(_:) must be overridden")
  }

  @usableFromInline
  func receive(completion: Subscribers.Completion<Failure>) {
    preconditionFailure("SubscriberBoxBase.receive(completion:) must be overridden")
  }

  var description: String { "Anonymous AnySubscriber" }

  var customMirror: Mirror { Mirror(self, children: [:]) }
}

private final class SubscriberBox<Base: Subscriber>: SubscriberBoxBase<Base.Input, Base.Failure> {
  let base: Base

  init(_ base: Base) {
    self.base = base
  }

  override func receive(subscription: any Subscription) {
    base.receive(subscription: subscription)
  }

  override func receive(_ value: Base.Input) -> Subscribers.Demand {
    base.receive(value)
  }

  override func receive(completion: Subscribers.Completion<Base.Failure>) {
    base.receive(completion: completion)
  }

  override var description: String { String(describing: base) }

  override var customMirror: Mirror { Mirror(reflecting: base) }
}

private final class ClosureSubscriberBox<Input, Failure: Error>: SubscriberBoxBase<Input, Failure> {
  let receiveSubscription: ((any Subscription) -> Void)?
  let receiveValue: ((Input) -> Subscribers.Demand)?
  let receiveCompletion: ((Subscribers.Completion<Failure>) -> Void)?

  init(
    receiveSubscription: ((any Subscription) -> Void)?,
    receiveValue: ((Input) -> Subscribers.Demand)?,
    receiveCompletion: ((Subscribers.Completion<Failure>) -> Void)?
  ) {
    self.receiveSubscription = receiveSubscription
    self.receiveValue = receiveValue
    self.receiveCompletion = receiveCompletion
  }

  override func receive(subscription: any Subscription) {
    receiveSubscription?(subscription)
  }

  override func receive(_ value: Input) -> Subscribers.Demand {
    receiveValue?(value) ?? .none
  }

  override func receive(completion: Subscribers.Completion<Failure>) {
    receiveCompletion?(completion)
  }

  /// The description's, as Combine's closure-based `AnySubscriber` reflects.
  override var customMirror: Mirror { Mirror(reflecting: description) }
}
