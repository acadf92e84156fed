internal import StreamCore

extension Future where Output: Sendable {
  /// The value, once the future completes; throws its failure. Combine's `value`.
  ///
  /// ```swift
  /// let user = try await userFuture.value
  /// ```
  ///
  /// When the awaiting task is cancelled before the future completes, this throws
  /// `CancellationError` and stops waiting (which may cancel the task of a future made with
  /// `init(priority:operation:)`). Propagate's synchronous `value` is `resolvedValue`.
  ///
  /// > Thread safety: Any number of tasks may await one future.
  ///
  /// - Throws: The future's failure, or `CancellationError`.
  public var value: Output {
    get async throws {
      try await awaitResult().get()
    }
  }

  /// Waits for the result; throws only `CancellationError`.
  func awaitResult() async throws -> Result<Output, Failure> {
    let awaiter = FutureAwaiter<Output, Failure>()
    return try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { continuation in
        guard awaiter.install(continuation) else { return }  // already cancelled
        register(FutureWaiter(id: ObjectIdentifier(awaiter)) { awaiter.resume(with: $0) })
        if awaiter.isCancelled {
          withdraw(ObjectIdentifier(awaiter))  // cancelled while registering
        }
      }
    } onCancel: {
      awaiter.cancel()
      withdraw(ObjectIdentifier(awaiter))
    }
  }
}

extension Future where Output: Sendable, Failure == Never {
  /// The value, once the future completes. Combine's `value` for futures that can't fail.
  ///
  /// ```swift
  /// let answer = await Future<Int, Never> { $0(.success(42)) }.value
  /// ```
  ///
  /// It waits until the future completes, even if the awaiting task is cancelled, and counts
  /// as needing the result (see `init(priority:operation:)`).
  ///
  /// > Thread safety: Any number of tasks may await one future.
  public var value: Output {
    get async {
      await withCheckedContinuation { continuation in
        whenComplete { continuation.resume(returning: $0) }
      }.get()
    }
  }
}
