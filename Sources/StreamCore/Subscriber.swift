/// A protocol that declares a type that can receive input from a publisher.
///
/// ```swift
/// final class Printer: Subscriber {
///   func receive(subscription: any Subscription) { subscription.request(.max(2)) }
///   func receive(_ input: Int) -> Subscribers.Demand { print(input); return .none }
///   func receive(completion: Subscribers.Completion<Never>) { print(completion) }
/// }
/// ```
///
/// A publisher calls ``receive(subscription:)`` once, then ``receive(_:)`` at most as many times
/// as the subscriber has requested, then ``receive(completion:)`` at most once. The demand a
/// subscriber returns from ``receive(_:)`` adds to its outstanding demand.
///
/// > Thread safety: A publisher never calls one subscriber from two threads at once, but
/// > successive calls may come from different threads.
public protocol Subscriber<Input, Failure>: CustomCombineIdentifierConvertible, SendableMetatype {
  /// The kind of values this subscriber receives.
  associatedtype Input

  /// The kind of errors this subscriber might receive. Use `Never` if it can't receive errors.
  associatedtype Failure: Error

  /// Tells the subscriber that it has successfully subscribed to the publisher and may request
  /// items.
  ///
  /// - Parameter subscription: The subscription to request values through and to cancel.
  func receive(subscription: any Subscription)

  /// Tells the subscriber that the publisher has produced an element.
  ///
  /// - Parameter input: The published element.
  /// - Returns: How many more elements the subscriber expects to receive, added to the demand
  ///   that is still outstanding.
  func receive(_ input: Input) -> Subscribers.Demand

  /// Tells the subscriber that the publisher has completed publishing, either normally or with
  /// an error.
  ///
  /// - Parameter completion: How the publisher ended.
  func receive(completion: Subscribers.Completion<Failure>)
}

extension Subscriber where Input == Void {
  /// Tells the subscriber that a publisher of void elements is ready to receive further
  /// requests.
  ///
  /// - Returns: How many more elements the subscriber expects to receive.
  @inlinable
  public func receive() -> Subscribers.Demand {
    receive(())
  }
}
