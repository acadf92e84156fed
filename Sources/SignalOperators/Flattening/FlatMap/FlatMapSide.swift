public import StreamCore

extension Publishers.FlatMap.Inner {
  /// The subscriber of one child: tags its events with the child's slot and generation, and
  /// passes them on through the subscription's ``FlatMapChildEntries``, so that they reach
  /// specialised code even when the child calls this subscriber from unspecialised code.
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
      inner.subscribedEntry(inner, tag, subscription)
    }

    @inlinable
    func receive(_ input: Downstream.Input) -> Subscribers.Demand {
      inner.valueEntry(inner, tag, input)
    }

    @inlinable
    func receive(completion: Subscribers.Completion<NewPublisher.Failure>) {
      inner.completionEntry(inner, tag, completion)
    }
  }
}
