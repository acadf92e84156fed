#if canImport(XCTest)
import XCTest

extension ConformanceReport {
  /// Reports each failed rule, and each rule skipped without being listed in `skipping`, to
  /// XCTest, as one `XCTFail` at the caller's location.
  ///
  /// ```swift
  /// func testJustConforms() {
  ///   PublisherConformance(elements: 1) { Just(1) }.run()
  ///     .assertAllPassed(skipping: ["SC-1.05", "SC-2.04"])  // no long or failing publisher
  /// }
  /// ```
  ///
  /// A skip is silent only when the run lists it; a listed rule that runs is reported too.
  ///
  /// - Parameters:
  ///   - message: Added to each failure message.
  ///   - skipping: The ids of the rules this run is expected to skip (`"SC-1.05"`, …).
  ///   - file: The file to report failures in; the caller's by default.
  ///   - line: The line to report failures at; the caller's by default.
  public func assertAllPassed(
    _ message: @autoclosure () -> String = "",
    skipping: Set<String> = [],
    file: StaticString = #filePath,
    line: UInt = #line
  ) {
    let message = message()
    for failure in failures {
      XCTFail(issueText(for: failure, message: message), file: file, line: line)
    }
    for text in skipIssues(expected: skipping, message: message) {
      XCTFail(text, file: file, line: line)
    }
  }
}
#endif
