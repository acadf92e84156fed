public import StreamCore

extension Publishers.FlatMap.Inner {
  /// The subscriber of one child: tags its events with the child's slot and generation.
  @usableFromInline
  struct Side: Subscriber, CustomStringConvertible {
    @usableFromInline typealias Input = Downstream.Input
    @usableFromInline typealias Failure = NewPublisher.Failure

    @usableFromInline let inner: Publishers.FlatMap<NewPublisher, Upstream>.Inner<Downstream>
    @usableFromInline let tag: FlatMapChildTag
    @usableFromInline let combineIdentifier = CombineIdentifier()

    @inlinable
    init(
      inner: Publishers.FlatMap<NewPublisher, Upstream>.Inner<Downstream>,
      tag: FlatMapChildTag
    ) {
      self.inner = inner
      self.tag = tag
    }

    @usableFromInline
    var description: String { "FlatMap" }

    @inlinable
    func receive(subscription: any Subscription) {
      inner.childSubscribed(tag, subscription)
    }

    @inlinable
    func receive(_ input: Downstream.Input) -> Subscribers.Demand {
      inner.childValue(tag, input)
    }

    @inlinable
    func receive(completion: Subscribers.Completion<NewPublisher.Failure>) {
      switch completion {
      case .finished: inner.childFinished(tag)
      case .failure(let error): inner.childFailed(tag, error)
      }
    }
  }
}
