public import SignalOperators
public import StreamCore

extension Publisher {
  /// Drops every value and gives the result the output type the next operator needs.
  ///
  /// ```swift
  /// let saved = [1, 2, 3].publisher
  ///   .ignoreOutput(setOutputType: String.self)
  ///   .append("saved")
  ///   .sink { print($0) }  // saved
  /// ```
  ///
  /// `ignoreOutput()` then `setOutputType(to:)`: the upstream is asked for unlimited values and
  /// only its completion passes.
  ///
  /// > Thread safety: As `ignoreOutput()`: the completion arrives on the upstream's thread.
  ///
  /// - Parameter setOutputType: The output type to publish.
  /// - Returns: A publisher that publishes only the upstream's completion.
  public func ignoreOutput<NewOutput>(
    setOutputType: NewOutput.Type
  ) -> Publishers.Map<Publishers.IgnoreOutput<Self>, NewOutput> {
    ignoreOutput().setOutputType(to: setOutputType)
  }
}
