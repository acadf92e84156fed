#if canImport(XCTest)
import XCTest

extension ConformanceReport {
  /// Reports each failed rule to XCTest, as one `XCTFail` at the caller's location.
  ///
  /// ```swift
  /// func testJustConforms() {
  ///   PublisherConformance(elements: 1) { Just(1) }.run().assertAllPassed()
  /// }
  /// ```
  ///
  /// Passed and skipped rules report nothing.
  ///
  /// - Parameters:
  ///   - message: Added to each failure message.
  ///   - file: The file to report failures in; the caller's by default.
  ///   - line: The line to report failures at; the caller's by default.
  public func assertAllPassed(
    _ message: @autoclosure () -> String = "",
    file: StaticString = #filePath,
    line: UInt = #line
  ) {
    let failures = failures
    guard !failures.isEmpty else { return }
    let message = message()
    for failure in failures {
      XCTFail(issueText(for: failure, message: message), file: file, line: line)
    }
  }
}
#endif
