public import FutureKit
import StreamCore

extension Future {
  /// Transforms the result, value and failure alike, into a new future.
  ///
  /// ```swift
  /// let parsed: Future<Int, ParseError> = text.mapResult { result in
  ///   switch result {
  ///   case .success(let string): Int(string).map { .success($0) } ?? .failure(.notANumber)
  ///   case .failure: .failure(.noInput)
  ///   }
  /// }
  /// ```
  ///
  /// Each operator on this page returns a new future that completes when this one does, on the
  /// same thread, right after this future's earlier callbacks. Registering it counts as needing
  /// this future's result (see `init(priority:operation:)`).
  ///
  /// > Thread safety: `transform` runs once, on the thread that completes this future (or on this
  /// > thread if it already has), never under a lock.
  ///
  /// - Parameter transform: Maps the result.
  /// - Returns: A future of the transformed result.
  public func mapResult<NewOutput, NewFailure: Error>(
    _ transform: @escaping @Sendable (Result<Output, Failure>) -> Result<NewOutput, NewFailure>
  ) -> Future<NewOutput, NewFailure> {
    let mapped = Future<NewOutput, NewFailure>()
    whenComplete { result in
      mapped.complete(transform(result))
    }
    return mapped
  }

  /// Transforms the value; a failure passes through.
  ///
  /// ```swift
  /// let name: Future<String, LoadError> = userFuture.mapValue { $0.name }
  /// ```
  ///
  /// > Thread safety: `transform` runs once, on the completing thread, never under a lock.
  ///
  /// - Parameter transform: Maps the value.
  /// - Returns: A future of the transformed value.
  public func mapValue<NewOutput>(
    _ transform: @escaping @Sendable (Output) -> NewOutput
  ) -> Future<NewOutput, Failure> {
    mapResult { $0.map(transform) }
  }

  /// Transforms the failure; a value passes through.
  ///
  /// ```swift
  /// let domain: Future<User, AppError> = userFuture.mapError { AppError.network($0) }
  /// ```
  ///
  /// This method shadows the `mapError(_:)` publisher operator on `Future`; erase the future
  /// (`eraseToAnyPublisher()`) to use the operator.
  ///
  /// > Thread safety: `transform` runs once, on the completing thread, never under a lock.
  ///
  /// - Parameter transform: Maps the failure.
  /// - Returns: A future with the transformed failure.
  public func mapError<NewFailure: Error>(
    _ transform: @escaping @Sendable (Failure) -> NewFailure
  ) -> Future<Output, NewFailure> {
    mapResult { $0.mapError(transform) }
  }

  /// Transforms the value into a result, so a value may become a failure.
  ///
  /// ```swift
  /// let adult = ageFuture.splitValueMap { age in
  ///   age >= 18 ? .success(age) : .failure(.tooYoung)
  /// }
  /// ```
  ///
  /// > Thread safety: `transform` runs once, on the completing thread, never under a lock.
  ///
  /// - Parameter transform: Maps the value to a value or a failure.
  /// - Returns: A future of the transformed result.
  public func splitValueMap<NewOutput>(
    _ transform: @escaping @Sendable (Output) -> Result<NewOutput, Failure>
  ) -> Future<NewOutput, Failure> {
    mapResult { $0.flatMap(transform) }
  }

  /// Transforms the failure into a result, so a failure may become a value.
  ///
  /// ```swift
  /// let recovered = userFuture.splitErrorMap { error in
  ///   error == .notFound ? .success(.guest) : .failure(AppError(error))
  /// }
  /// ```
  ///
  /// > Thread safety: `transform` runs once, on the completing thread, never under a lock.
  ///
  /// - Parameter transform: Maps the failure to a value or a new failure.
  /// - Returns: A future of the transformed result.
  public func splitErrorMap<NewFailure: Error>(
    _ transform: @escaping @Sendable (Failure) -> Result<Output, NewFailure>
  ) -> Future<Output, NewFailure> {
    mapResult { $0.flatMapError(transform) }
  }

  /// Chains the next piece of work, started with this future's result.
  ///
  /// ```swift
  /// let saved = loadFuture.flatMap { result in
  ///   switch result {
  ///   case .success(let data): store.save(data)
  ///   case .failure(let error): Future.error(SaveError(error))
  ///   }
  /// }
  /// ```
  ///
  /// The returned future completes with the result of the future `transform` returns.
  ///
  /// > Thread safety: `transform` runs once, on the completing thread, never under a lock.
  ///
  /// - Parameter transform: Starts the next piece of work.
  /// - Returns: A future of the next piece of work's result.
  public func flatMap<NewOutput, NewFailure: Error>(
    _ transform: @escaping @Sendable (Result<Output, Failure>) -> Future<NewOutput, NewFailure>
  ) -> Future<NewOutput, NewFailure> {
    let chained = Future<NewOutput, NewFailure>()
    whenComplete { result in
      transform(result).whenComplete { chained.complete($0) }
    }
    return chained
  }

  /// Chains the next piece of work on success; a failure passes through.
  ///
  /// ```swift
  /// productID
  ///   .flatMapSuccess { fetchProduct(id: $0) }
  ///   .flatMapSuccess { fetchRelatedData(for: $0) }
  /// ```
  ///
  /// > Thread safety: `transform` runs at most once, on the completing thread, never under a
  /// > lock.
  ///
  /// - Parameter transform: Starts the next piece of work with the value.
  /// - Returns: A future of the next piece of work's result.
  public func flatMapSuccess<NewOutput>(
    _ transform: @escaping @Sendable (Output) -> Future<NewOutput, Failure>
  ) -> Future<NewOutput, Failure> {
    flatMap { result in
      switch result {
      case .success(let value): transform(value)
      case .failure(let error): Future<NewOutput, Failure>(result: .failure(error))
      }
    }
  }

  /// Chains recovery work on failure; a value passes through.
  ///
  /// ```swift
  /// let data = remote.flatMapError { _ in cache.load() }
  /// ```
  ///
  /// > Thread safety: `transform` runs at most once, on the completing thread, never under a
  /// > lock.
  ///
  /// - Parameter transform: Starts the recovery work with the failure.
  /// - Returns: A future of the value or the recovery's result.
  public func flatMapError<NewFailure: Error>(
    _ transform: @escaping @Sendable (Failure) -> Future<Output, NewFailure>
  ) -> Future<Output, NewFailure> {
    flatMap { result in
      switch result {
      case .success(let value): Future<Output, NewFailure>(result: .success(value))
      case .failure(let error): transform(error)
      }
    }
  }

  /// Forwards this future's result to `promise`, and returns this future.
  ///
  /// ```swift
  /// let shared = Promise<Data, LoadError>()
  /// download.bindTo(shared)
  /// ```
  ///
  /// Only the first completion of `promise` counts, so binding loses to an earlier completion.
  ///
  /// > Thread safety: The promise is completed on the thread that completes this future.
  ///
  /// - Parameter promise: The promise to complete with this future's result.
  /// - Returns: This future, to chain more calls.
  @discardableResult
  public func bindTo(_ promise: StreamPropagate.Promise<Output, Failure>) -> Future {
    whenComplete { promise.complete(withResult: $0) }
    return self
  }

  /// Discards the value, keeping only whether the work succeeded.
  ///
  /// ```swift
  /// let done: Future<Void, SaveError> = store.save(item).mapToVoid()
  /// ```
  ///
  /// > Thread safety: May be called from any thread, before or after the future completes.
  ///
  /// - Returns: A future of `()` or the failure.
  public func mapToVoid() -> Future<Void, Failure> {
    mapResult { $0.map { _ in () } }
  }

  /// Propagate's `mapToNSError()`. FutureKit doesn't import Foundation, so it isn't provided.
  ///
  /// ```swift
  /// let erased = future.mapError { $0 as NSError }  // with Foundation imported
  /// ```
  ///
  /// - Returns: Never: calling it is a compile error that says what to write instead.
  @available(
    *,
    unavailable,
    message:
      "FutureKit doesn't import Foundation: write mapError { $0 as NSError } (or as any Error)"
  )
  public func mapToNSError() -> Future<Output, any Error> {
    fatalError("unavailable")
  }

  /// Propagate's `typeErased()`. FutureKit doesn't import Foundation, so it isn't provided.
  ///
  /// ```swift
  /// let erased = future.mapValue { $0 as Any }.mapError { $0 as NSError }  // with Foundation
  /// ```
  ///
  /// - Returns: Never: calling it is a compile error that says what to write instead.
  @available(
    *,
    unavailable,
    message:
      "FutureKit doesn't import Foundation: write mapValue { $0 as Any }.mapError { $0 as NSError }"
  )
  public func typeErased() -> Future<Any, any Error> {
    fatalError("unavailable")
  }

  /// A future of the value that never completes if this one fails; replaces Propagate's
  /// `SuccessOnlyFuture`.
  ///
  /// ```swift
  /// let avatar: Future<Image, Never> = imageFuture.successOnly()
  /// avatar.onSuccess { view.image = $0 }
  /// ```
  ///
  /// > Thread safety: May be called from any thread, before or after the future completes.
  ///
  /// - Returns: A future that succeeds with the value, or never completes.
  public func successOnly() -> Future<Output, Never> {
    let values = Future<Output, Never>()
    whenComplete { result in
      if case .success(let value) = result { values.complete(.success(value)) }
    }
    return values
  }
}

extension Future {
  /// Unwraps an optional value; a `nil` value means the new future **never completes**, as in
  /// Propagate.
  ///
  /// ```swift
  /// let user: Future<User, LoadError> = optionalUser.compactMap()
  /// ```
  ///
  /// Use ``compactMap(fallbackError:errorMap:)`` to fail instead.
  ///
  /// > Thread safety: May be called from any thread, before or after the future completes.
  ///
  /// - Returns: A future of the unwrapped value; failures pass through.
  public func compactMap<Wrapped>() -> Future<Wrapped, Failure> where Output == Wrapped? {
    let unwrapped = Future<Wrapped, Failure>()
    whenComplete { result in
      switch result {
      case .success(.some(let value)): unwrapped.complete(.success(value))
      case .success(.none): break
      case .failure(let error): unwrapped.complete(.failure(error))
      }
    }
    return unwrapped
  }

  /// Unwraps an optional value; a `nil` value becomes `fallbackError`, and failures are mapped.
  ///
  /// ```swift
  /// let user = optionalUser.compactMap(fallbackError: AppError.missing) { AppError.load($0) }
  /// ```
  ///
  /// > Thread safety: `errorMap` runs at most once, on the completing thread, never under a lock.
  ///
  /// - Parameters:
  ///   - fallbackError: The failure when the value is `nil`.
  ///   - errorMap: Maps this future's failure.
  /// - Returns: A future of the unwrapped value or a failure.
  public func compactMap<Wrapped, NewFailure: Error>(
    fallbackError: NewFailure,
    errorMap: @escaping @Sendable (Failure) -> NewFailure
  ) -> Future<Wrapped, NewFailure> where Output == Wrapped? {
    mapResult { result in
      switch result {
      case .success(.some(let value)): .success(value)
      case .success(.none): .failure(fallbackError)
      case .failure(let error): .failure(errorMap(error))
      }
    }
  }
}
