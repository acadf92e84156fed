internal import StreamCore

extension Future {
  /// Creates a future that runs `operation` in a new `Task` and completes with its outcome.
  ///
  /// ```swift
  /// let profile = Future<Profile, any Error> { try await api.profile() }
  /// let cancellable = profile.sink(receiveCompletion: { _ in }, receiveValue: { show($0) })
  /// ```
  ///
  /// The task starts at once, like the closure of ``init(_:)``. It is **cancelled when nobody
  /// needs its result any more**: when, before it completes, the last subscription is cancelled
  /// or the last cancellable awaiter of `value` is cancelled, and no callback or derived
  /// future (``mapValue(_:)``, ``bindTo(_:)``, ``merge(_:)`` and so on) is registered. A future
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

extension Future where Output: Sendable {
  /// The value, once the future completes; throws its failure. Combine's `value`.
  ///
  /// ```swift
  /// let user = try await userFuture.value
  /// ```
  ///
  /// When the awaiting task is cancelled before the future completes, this throws
  /// `CancellationError` and stops waiting (which may cancel the task of a future made with
  /// ``init(priority:operation:)``). Propagate's synchronous `value` is ``resolvedValue``.
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
  /// as needing the result (see ``init(priority:operation:)``).
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
