public import FutureKit
internal import StreamCore

extension Future {
  /// A future of every value, in array order, once all the futures have succeeded.
  ///
  /// ```swift
  /// let pages: Future<[Page], LoadError> = Future.merge(ids.map(loadPage))
  /// ```
  ///
  /// - Values come in the order of `futures`, not in the order they complete.
  /// - It fails as soon as one future fails, with the failure of the **first future in array
  ///   order** that has failed at that moment.
  /// - An empty array succeeds at once with `[]` (Propagate's never completed).
  ///
  /// > Thread safety: Completes on the thread that completes the last of the futures (or the
  /// > failing one), never under a lock.
  ///
  /// - Parameter futures: The futures to wait for.
  /// - Returns: A future of all the values, or the first failure.
  public static func merge(_ futures: [Future]) -> Future<[Output], Failure> {
    guard !futures.isEmpty else { return Future<[Output], Failure>(result: .success([])) }
    let merged = Future<[Output], Failure>()
    let remaining = LockedState(futures.count)
    for future in futures {
      future.whenComplete { result in
        switch result {
        case .success:
          let isLast = remaining.withLock { count -> Bool in
            count -= 1
            return count == 0
          }
          if isLast {
            merged.complete(.success(futures.map(\.settledValue)))
          }
        case .failure(let error):
          // Another future earlier in the array may have failed meanwhile; its failure wins.
          let first = futures.lazy.compactMap(\.error).first ?? error
          merged.complete(.failure(first))
        }
      }
    }
    return merged
  }

  /// A future of the first value any of the futures succeeds with; it fails only when every
  /// future has failed.
  ///
  /// ```swift
  /// let data = Future.firstFinished(from: [primary.load(), mirror.load()])
  /// ```
  ///
  /// When all fail, it fails with the failure of the **last future to fail**, as Propagate's
  /// code does (its doc comment says "whichever finishes first"; the code is followed). An empty
  /// array never completes.
  ///
  /// > Thread safety: Completes on the thread that completes the first successful future (or
  /// > the last failing one), never under a lock.
  ///
  /// - Parameter futures: The futures to race.
  /// - Returns: A future of the first value, or of the last failure.
  public static func firstFinished(from futures: [Future]) -> Future {
    let first = Future()
    let failures = LockedState(0)
    for future in futures {
      future.whenComplete { result in
        switch result {
        case .success:
          first.complete(result)
        case .failure:
          let allFailed = failures.withLock { count -> Bool in
            count += 1
            return count == futures.count
          }
          // The callback that counts the last failure holds the last future to fail.
          if allFailed {
            first.complete(result)
          }
        }
      }
    }
    return first
  }

  /// A future of a tuple of the values of any number of futures with the same failure type.
  ///
  /// ```swift
  /// let page = Future.combine(userFuture, postsFuture, settingsFuture)
  /// // Future<(User, [Post], Settings), LoadError>
  /// ```
  ///
  /// It succeeds once every future has succeeded and fails with the first failure to happen.
  /// With no futures it succeeds at once with `()`; with one it is that future's value.
  ///
  /// > Thread safety: Completes on the thread that completes the last of the futures (or the
  /// > first failing one), never under a lock.
  ///
  /// - Parameter futures: The futures to wait for.
  /// - Returns: A future of all the values, in argument order.
  public static func combine<each Element>(
    _ futures: repeat Future<each Element, Failure>
  ) -> Future where Output == (repeat each Element) {
    let combined = Future()
    let all = (repeat each futures)
    var count = 0
    for _ in repeat each futures {
      count += 1
    }
    guard count > 0 else {
      combined.complete(.success((repeat (each all).settledValue)))
      return combined
    }
    let remaining = LockedState(count)
    func attach<Value>(_ future: Future<Value, Failure>) {
      future.whenComplete { result in
        switch result {
        case .success:
          let isLast = remaining.withLock { count -> Bool in
            count -= 1
            return count == 0
          }
          if isLast {
            combined.complete(.success((repeat (each all).settledValue)))
          }
        case .failure(let error):
          combined.complete(.failure(error))
        }
      }
    }
    repeat attach(each futures)
    return combined
  }

  /// A future of a tuple of this future's value and the values of `others`; the instance form
  /// of ``combine(_:)``.
  ///
  /// ```swift
  /// let pair = userFuture.combineWith(postsFuture)  // Future<(User, [Post]), LoadError>
  /// ```
  ///
  /// > Thread safety: May be called from any thread, before or after the future completes.
  ///
  /// - Parameter others: The other futures to wait for.
  /// - Returns: A future of this value followed by the others', in argument order.
  public func combineWith<each Other>(
    _ others: repeat Future<each Other, Failure>
  ) -> Future<(Output, repeat each Other), Failure> {
    Future<(Output, repeat each Other), Failure>.combine(self, repeat each others)
  }

  /// The value of a future known to have succeeded.
  var settledValue: Output {
    guard case .success(let value) = settledResult else {
      preconditionFailure("Future: no value in a failed future")
    }
    return value
  }
}
