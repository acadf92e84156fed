/// The subscriber that a future's own `sink` attaches: the two closures, and a
/// request for unlimited values on subscription, as `Subscribers.Sink` makes.
///
/// A struct, held by the subscription itself, so that `future.sink { }`
/// allocates the subscription alone where a `Subscribers.Sink` would add a second object. It
/// doesn't keep its subscription: the token returned by `sink` cancels the subscription directly.
@usableFromInline
package struct ClosureSink<Input, Failure: Error>: Subscriber {
  @usableFromInline
  let receiveValue: (Input) -> Void

  @usableFromInline
  let receiveCompletion: (Subscribers.Completion<Failure>) -> Void

  /// Unique per subscriber, like a class's identity.
  @usableFromInline
  package let combineIdentifier = CombineIdentifier()

  /// - Parameters:
  ///   - receiveCompletion: Called with the completion.
  ///   - receiveValue: Called with each value.
  @inlinable
  package init(
    receiveCompletion: @escaping (Subscribers.Completion<Failure>) -> Void,
    receiveValue: @escaping (Input) -> Void
  ) {
    self.receiveCompletion = receiveCompletion
    self.receiveValue = receiveValue
  }

  /// Requests unlimited values.
  @inlinable
  package func receive(subscription: any Subscription) {
    subscription.request(.unlimited)
  }

  /// Calls `receiveValue`.
  @inlinable
  package func receive(_ input: Input) -> Subscribers.Demand {
    receiveValue(input)
    return .none
  }

  /// Calls `receiveCompletion`.
  @inlinable
  package func receive(completion: Subscribers.Completion<Failure>) {
    receiveCompletion(completion)
  }
}
