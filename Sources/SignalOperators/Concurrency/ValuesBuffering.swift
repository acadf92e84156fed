/// How `values` buffers what the loop hasn't read yet: the machinery of StreamConcurrency's
/// `AsyncBufferingPolicy`, which maps onto it.
@usableFromInline
package enum ValuesBuffering: Hashable, Sendable {
  case unbounded
  case bufferingOldest(Int)
  case bufferingNewest(Int)
}
