/// Something waiting for a ``Future`` to complete: a subscription, a callback or an awaiting
/// task.
///
/// Only closures and an identity, so that its layout doesn't depend on the future's generic
/// types and unspecialised code can copy and destroy it without looking up type metadata.
@usableFromInline
struct FutureWaiter<Output, Failure: Error>: Sendable {
  /// Set for waiters that may withdraw before completion (subscriptions, cancellable awaiters);
  /// `nil` for callbacks, which stay until the future completes.
  @usableFromInline
  let id: ObjectIdentifier?

  /// Called once with the result, outside the future's lock.
  @usableFromInline
  let notify: @Sendable (Result<Output, Failure>) -> Void

  /// - Parameters:
  ///   - id: The identity to withdraw it by, or `nil` for a permanent waiter.
  ///   - notify: Called once with the result.
  @inlinable
  init(id: ObjectIdentifier?, notify: @escaping @Sendable (Result<Output, Failure>) -> Void) {
    self.id = id
    self.notify = notify
  }
}

/// What a subscription knows about its future's result, without the generic result itself.
@usableFromInline
package enum FutureResolution: UInt8, Sendable {
  case pending
  case success
  case failure
}

/// What a ``Future`` keeps its result as (`storedResult`): the `Result`, or a placeholder
/// until completion.
///
/// A protocol of its own rather than `Any`, so that a generic function constrained to it opens
/// the existential and sees the stored value's address (see `Future.settledResult`).
@usableFromInline
protocol FutureStoredResult {}

extension Result: FutureStoredResult {}

/// The placeholder a pending ``Future`` stores instead of a result: empty, and not generic, so
/// storing it needs no type metadata lookup.
@usableFromInline
struct FutureNoResult: FutureStoredResult {
  @inlinable
  init() {}
}
