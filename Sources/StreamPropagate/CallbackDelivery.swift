import FutureKit
import StreamCore

/// How a Propagate-style callback is delivered, for the registrations that take it instead of
/// a queue: `onSuccess(_:_:)`, ``StreamSubscriber/onNewData(_:perform:)`` and their
/// siblings.
///
/// ```swift
/// promise.future.onSuccess(.synchronously) { value in cache.store(value) }
/// promise.resolve(1)  // the callback has run when this returns
/// ```
///
/// Propagate never ran a callback inside `resolve`, `reject` or `publish`: without a queue, the
/// callbacks of FutureKit's `Future` and `StreamSubscriber` run asynchronously on a private
/// serial queue, as Propagate's did. ``synchronously`` is the explicit opt-out.
///
/// > Thread safety: A plain value, safe to share. A callback registered ``synchronously`` runs
/// > on whichever thread completes the future or publishes, so it must be safe there.
public enum CallbackDelivery: Sendable, Hashable {
  /// Runs the callback on the thread that completes the future or publishes the state, after
  /// the completing call has released its locks; or, when the future is already complete or
  /// the subscriber already cancelled, at once on the registering thread.
  case synchronously
}
