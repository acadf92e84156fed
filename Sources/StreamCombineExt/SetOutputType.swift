public import SignalOperators
public import StreamCore

extension Publisher where Output == Never {
  /// Gives a publisher that never sends a value the output type the next operator needs.
  ///
  /// ```swift
  /// let done = PassthroughSubject<Never, Never>()
  /// let merged = done.setOutputType(to: Int.self).merge(with: Just(1))
  /// ```
  ///
  /// The output counterpart of `setFailureType(to:)`: a `Map` whose
  /// closure can never run, so completion and demand pass through unchanged.
  ///
  /// > Thread safety: A value type; the subscriber talks to the upstream's subscription directly.
  ///
  /// - Parameter outputType: The output type to publish.
  /// - Returns: A publisher with `NewOutput` as its output type.
  public func setOutputType<NewOutput>(
    to outputType: NewOutput.Type
  ) -> Publishers.Map<Self, NewOutput> {
    map { _ -> NewOutput in }
  }
}
