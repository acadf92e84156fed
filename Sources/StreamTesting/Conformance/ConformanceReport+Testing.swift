#if canImport(Testing)
public import Testing

extension ConformanceReport {
  /// Records each failed rule as a Swift Testing issue at the caller's location.
  ///
  /// ```swift
  /// @Test func just_conforms() {
  ///   PublisherConformance(elements: 1) { Just(1) }.run().expectAllPassed()
  /// }
  /// ```
  ///
  /// Passed and skipped rules record nothing.
  ///
  /// - Parameters:
  ///   - comment: Added to each issue.
  ///   - sourceLocation: Where to record the issues; the caller's location by default.
  public func expectAllPassed(
    _ comment: Comment? = nil,
    sourceLocation: SourceLocation = #_sourceLocation
  ) {
    for failure in failures {
      Issue.record(
        Comment(rawValue: issueText(for: failure, message: comment?.rawValue ?? "")),
        sourceLocation: sourceLocation
      )
    }
  }
}
#endif
