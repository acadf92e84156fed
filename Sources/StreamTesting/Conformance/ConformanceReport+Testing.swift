#if canImport(Testing)
public import Testing

extension ConformanceReport {
  /// Records each failed rule, and each rule skipped without being listed in `skipping`, as a
  /// Swift Testing issue at the caller's location.
  ///
  /// ```swift
  /// @Test func just_conforms() {
  ///   PublisherConformance(elements: 1) { Just(1) }.run()
  ///     .expectAllPassed(skipping: ["SC-1.05", "SC-2.04"])  // no long or failing publisher
  /// }
  /// ```
  ///
  /// A rule is skipped when the run lacks what it needs (a failing publisher, a long one, an
  /// element count); a skip is silent only when the run lists it, so a test can't lose a rule
  /// unseen. A listed rule that runs is an issue too, so the list stays exact.
  ///
  /// - Parameters:
  ///   - comment: Added to each issue.
  ///   - skipping: The ids of the rules this run is expected to skip (`"SC-1.05"`, …).
  ///   - sourceLocation: Where to record the issues; the caller's location by default.
  public func expectAllPassed(
    _ comment: Comment? = nil,
    skipping: Set<String> = [],
    sourceLocation: SourceLocation = #_sourceLocation
  ) {
    let message = comment?.rawValue ?? ""
    for failure in failures {
      Issue.record(
        Comment(rawValue: issueText(for: failure, message: message)),
        sourceLocation: sourceLocation
      )
    }
    for text in skipIssues(expected: skipping, message: message) {
      Issue.record(Comment(rawValue: text), sourceLocation: sourceLocation)
    }
  }
}
#endif
