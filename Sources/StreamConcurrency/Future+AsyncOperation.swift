public import FutureKit
import SignalOperators
internal import StreamCore

extension Future {
  /// Creates a future that runs `operation` in a new `Task` and completes with its outcome.
  ///
  /// ```swift
  /// let profile = Future<Profile, any Error> { try await api.profile() }
  /// let cancellable = profile.sink(receiveCompletion: { _ in }, receiveValue: { show($0) })
  /// ```
  ///
  /// The task starts at once, like the closure of `init(_:)`. It is **cancelled when nobody
  /// needs its result any more**: when, before it completes, the last subscription is cancelled
  /// or the last cancellable awaiter of `value` is cancelled, and no callback or derived
  /// future (`mapValue(_:)`, `bindTo(_:)`, `merge(_:)` and so on) is registered. A future
  /// that nobody has subscribed to yet keeps running. When cancelled, the operation sees
  /// `Task.isCancelled`; whatever it then returns or throws (typically `CancellationError`)
  /// completes the future.
  ///
  /// The trailing-closure form `Future { try await ... }` takes no argument, so it never
  /// competes with Combine's `Future { promise in ... }`.
  ///
  /// > Thread safety: The operation runs on the global concurrent executor; the future completes
  /// > on the task's thread.
  ///
  /// - Parameters:
  ///   - priority: The task's priority; `nil` uses the default.
  ///   - operation: The work; its thrown error type is the future's `Failure` (untyped `throws`
  ///     for `any Error`, no `throws` for `Never`).
  public convenience init(
    priority: TaskPriority? = nil,
    operation: @escaping @Sendable () async throws(Failure) -> Output
  ) {
    self.init()
    let task = Task(priority: priority) { [self] in
      let result: Result<Output, Failure>
      do throws(Failure) {
        result = .success(try await operation())
      } catch {
        result = .failure(error)
      }
      complete(result)
    }
    lock.withLock {
      if resolution == .pending { self.task = task }
    }
  }
}
