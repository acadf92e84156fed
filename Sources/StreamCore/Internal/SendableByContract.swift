/// Carries a subscription, or another cancellable, across threads.
///
/// `Subscription` and `Cancellable` don't refine `Sendable`, as in Combine: a library's own
/// subscription class with unsynchronised `var`s must compile unchanged. Yet Combine's contract
/// (ours too, in [Docs/StreamCore.md](../../../Docs/StreamCore.md), "The threading contract") is
/// that a subscription's `request(_:)` and `cancel()`, and a cancellable's `cancel()`, may be
/// called from any thread. Where an operator holds one and calls it from another thread (from a
/// scheduler's action, a task, an `AsyncStream`'s termination handler), it captures this box
/// instead of the value: the one place that relies on that contract, rather than a
/// `nonisolated(unsafe)` at each site.
///
/// Only `request(_:)` and `cancel()` may be called through ``wrapped`` from another thread.
@usableFromInline
@frozen
package struct SendableByContract<Wrapped>: @unchecked Sendable {
  /// The subscription or cancellable.
  @usableFromInline
  package let wrapped: Wrapped

  @inlinable
  package init(_ wrapped: Wrapped) {
    self.wrapped = wrapped
  }
}
