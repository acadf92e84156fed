public import FutureKit
import StreamCore

/// Propagate's `SuccessOnlyFuture<T>`: a future that only ever succeeds, as
/// `successOnly()` returns.
///
/// ```swift
/// let avatar: SuccessOnlyFuture<Image> = imageFuture.successOnly()
/// avatar.onSuccess { view.image = $0 }
/// ```
///
/// Its `onSuccess` is `onSuccess(onQueue:_:)`. Propagate's `value` is
/// `resolvedValue` (`value` is Combine's `async` property on a future), and its `map` is
/// `mapValue(_:)` (`map` is Combine's publisher operator), so those two calls don't compile
/// unchanged rather than mean something else.
public typealias SuccessOnlyFuture<T> = Future<T, Never>
