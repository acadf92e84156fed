public import SignalOperators
public import StreamCore

extension Publishers.BufferingStrategy {
  /// A buffer-full strategy that stops the program with `message`.
  ///
  /// ```swift
  /// upstream.buffer(size: 10, prefetch: .keepFull, whenFull: .fatalError("sensor overflow"))
  /// ```
  ///
  /// It is a `customError(_:)` whose closure calls `Swift.fatalError`, as Conbini defines it.
  ///
  /// - Parameters:
  ///   - message: The message to stop with.
  ///   - file: The file to report; the caller's by default.
  ///   - line: The line to report; the caller's by default.
  /// - Returns: A strategy that traps when the buffer overflows.
  public static func fatalError(
    _ message: @autoclosure @escaping () -> String = String(),
    file: StaticString = #file,
    line: UInt = #line
  ) -> Self {
    .customError { Swift.fatalError(message(), file: file, line: line) }
  }
}
