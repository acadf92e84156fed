public import StreamCore

/// The subscriber a merge attaches to one of its upstreams.
@usableFromInline
final class MergeSide<Downstream: Subscriber>: Subscriber, Sendable,
  CustomStringConvertible
{
  @usableFromInline
  typealias Input = Downstream.Input

  @usableFromInline
  typealias Failure = Downstream.Failure

  @usableFromInline
  let inner: MergeStorage<Downstream>

  @usableFromInline
  let index: Int

  @inlinable
  init(inner: MergeStorage<Downstream>, index: Int) {
    self.inner = inner
    self.index = index
  }

  @usableFromInline
  func receive(subscription: any Subscription) {
    inner.receive(subscription: subscription, from: index)
  }

  @inlinable
  func receive(_ input: Input) -> Subscribers.Demand {
    inner.receive(input, from: index)
  }

  @usableFromInline
  func receive(completion: Subscribers.Completion<Failure>) {
    inner.receive(completion: completion, from: index)
  }

  @usableFromInline
  var description: String { "Merge" }
}

/// Subscribes a merge's downstream: hands it the subscription, then subscribes each upstream
/// in order through `subscribe(upstream index, side)`, unless the merge ended meanwhile.
@inlinable
func mergeSubscribe<Downstream: Subscriber>(
  _ downstream: Downstream,
  count: Int,
  _ subscribe: (Int, MergeSide<Downstream>) -> Void
) {
  let inner = MergeStorage(downstream: downstream, count: count)
  inner.start()
  for index in 0..<count {
    if inner.isClosed { return }
    subscribe(index, MergeSide(inner: inner, index: index))
  }
}

/// Subscribes a merge's downstream to a fixed list of upstreams (`Merge` … `Merge8`), each given
/// as the call that subscribes it: hands the downstream the subscription, then subscribes each
/// upstream in order, unless the merge ended meanwhile.
@inlinable
func mergeSubscribe<Downstream: Subscriber>(
  _ downstream: Downstream,
  to upstreams: [(MergeSide<Downstream>) -> Void]
) {
  mergeSubscribe(downstream, count: upstreams.count) { index, side in upstreams[index](side) }
}

extension MergeStorage: CustomStringConvertible, CustomReflectable,
  CustomPlaygroundDisplayConvertible
{
  @usableFromInline
  var description: String { "Merge" }

  @usableFromInline
  var customMirror: Mirror { Mirror(self, children: [:]) }

  @usableFromInline
  var playgroundDescription: Any { description }
}
