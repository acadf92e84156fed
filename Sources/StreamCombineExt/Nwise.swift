import SignalOperators
public import StreamCore

extension Publisher {
  /// Publishes each run of `size` consecutive values, once `size` values have arrived.
  ///
  /// ```swift
  /// [1, 2, 3, 4].publisher.nwise(3).sink { print($0) }  // [1, 2, 3], [2, 3, 4]
  /// ```
  ///
  /// Nothing is published until the `size`-th value; from then on every value publishes the
  /// window that ends with it. A `scan` then a `filter`: demand passes through, and each value
  /// that completes no window asks the upstream for one more. The completion passes through.
  /// `size` must be greater than 1.
  ///
  /// > Thread safety: Values pass on the upstream's thread.
  ///
  /// - Parameter size: The number of values in each window; greater than 1.
  /// - Returns: A publisher of arrays of `size` consecutive values.
  public func nwise(_ size: Int) -> AnyPublisher<[Output], Failure> {
    precondition(size > 1, "nwise: size must be greater than 1, got \(size)")
    return scan([Output]()) { window, value in
      var next = window
      if next.count == size { next.removeFirst() }
      next.append(value)
      return next
    }
    .filter { $0.count == size }
    .eraseToAnyPublisher()
  }

  /// Publishes each value together with the one before it.
  ///
  /// ```swift
  /// [1, 2, 3].publisher.pairwise().sink { print($0) }  // (1, 2), (2, 3)
  /// ```
  ///
  /// `nwise(2)` as a tuple: the first value publishes nothing.
  ///
  /// > Thread safety: Values pass on the upstream's thread.
  ///
  /// - Returns: A publisher of `(previous, current)` pairs.
  public func pairwise() -> AnyPublisher<(Output, Output), Failure> {
    nwise(2).map { ($0[0], $0[1]) }.eraseToAnyPublisher()
  }
}
