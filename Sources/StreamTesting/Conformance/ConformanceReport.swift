/// The outcome of checking one rule.
///
/// ```swift
/// for result in report.results where result.outcome != .passed {
///   print(result)
/// }
/// ```
///
/// > Thread safety: A value type; use it from any thread.
public struct ConformanceResult: Hashable, Sendable, CustomStringConvertible {
  /// How a rule came out.
  ///
  /// ```swift
  /// if case .failed(let message) = result.outcome { print(result.rule, message) }
  /// ```
  ///
  /// > Thread safety: A value type; use it from any thread.
  public enum Outcome: Hashable, Sendable {
    /// The publisher followed the rule.
    case passed

    /// The publisher broke the rule; the message says how.
    case failed(String)

    /// The rule was not checked; the message says why.
    case skipped(String)
  }

  /// The rule that was checked.
  public let rule: ConformanceRule

  /// How it came out.
  public let outcome: Outcome

  /// Creates a result.
  ///
  /// - Parameters:
  ///   - rule: The rule that was checked.
  ///   - outcome: How it came out.
  public init(rule: ConformanceRule, outcome: Outcome) {
    self.rule = rule
    self.outcome = outcome
  }

  /// `"SC-1.01 passed"`, `"SC-1.01 FAILED: <message>"` or `"SC-1.01 skipped: <reason>"`.
  public var description: String {
    switch outcome {
    case .passed: "\(rule.id) passed"
    case .failed(let message): "\(rule.id) FAILED: \(message)"
    case .skipped(let reason): "\(rule.id) skipped: \(reason)"
    }
  }
}

/// What ``PublisherConformance/run(_:)`` found: one ``ConformanceResult`` per rule.
///
/// ```swift
/// let report = PublisherConformance(elements: 1) { Just(1) }.run()
/// report.failures.isEmpty  // true
/// print(report)            // StreamCore.Just<Int>: 15 passed, 0 failed, 3 skipped …
/// ```
///
/// Report the failures to a test framework with `assertAllPassed(file:line:)` (XCTest) or
/// `expectAllPassed(sourceLocation:)` (Swift Testing). Skipped rules are not failures.
///
/// > Thread safety: A value type; use it from any thread.
public struct ConformanceReport: Sendable, CustomStringConvertible {
  /// The publisher type that was checked, such as `"StreamCore.Just<Int>"`.
  public let publisher: String

  /// One result per rule, in the order the rules ran.
  public let results: [ConformanceResult]

  /// Creates a report.
  ///
  /// - Parameters:
  ///   - publisher: The name of the publisher type that was checked.
  ///   - results: One result per rule.
  public init(publisher: String, results: [ConformanceResult]) {
    self.publisher = publisher
    self.results = results
  }

  /// The results of the rules the publisher broke.
  public var failures: [ConformanceResult] {
    results.filter { if case .failed = $0.outcome { true } else { false } }
  }

  /// The results of the rules that were not checked.
  public var skipped: [ConformanceResult] {
    results.filter { if case .skipped = $0.outcome { true } else { false } }
  }

  /// Whether no rule failed. Skipped rules don't count against it.
  public var allPassed: Bool { failures.isEmpty }

  /// The outcome of `rule`, or `nil` if it was not run.
  ///
  /// ```swift
  /// #expect(report.outcome(of: .demandOneAtATime) == .passed)
  /// ```
  ///
  /// - Parameter rule: A rule of the run.
  /// - Returns: Its outcome.
  public func outcome(of rule: ConformanceRule) -> ConformanceResult.Outcome? {
    results.first { $0.rule == rule }?.outcome
  }

  /// A heading with the counts, then one line per rule.
  public var description: String {
    let passed = results.count - failures.count - skipped.count
    let heading =
      "\(publisher): \(passed) passed, \(failures.count) failed, \(skipped.count) skipped"
    return ([heading] + results.map { "  \($0)" }).joined(separator: "\n")
  }

  /// The message a test framework shows for one failed rule.
  /// What is wrong with the skipped rules, given the rules a run says it skips: one text per
  /// rule skipped without being listed, and one per listed rule that was not skipped.
  func skipIssues(expected: Set<String>, message: String) -> [String] {
    var texts: [String] = []
    let suffix = message.isEmpty ? "" : " - \(message)"
    for result in results {
      let listed = expected.contains(result.rule.id)
      switch result.outcome {
      case .skipped(let reason) where !listed:
        texts.append(
          "\(publisher) skipped \(result.rule.id) (\(result.rule.statement)): \(reason). "
            + "Give the run what the rule needs, or list \"\(result.rule.id)\" in skipping:"
            + suffix
        )
      case .passed where listed, .failed where listed:
        texts.append(
          "\(publisher) was expected to skip \(result.rule.id), but the rule ran; remove "
            + "\"\(result.rule.id)\" from skipping:" + suffix
        )
      default:
        break
      }
    }
    let known = Set(results.map(\.rule.id))
    for id in expected.subtracting(known).sorted() {
      texts.append("skipping: names \"\(id)\", which is no rule of this run" + suffix)
    }
    return texts
  }

  func issueText(for result: ConformanceResult, message: String) -> String {
    var text = "\(publisher) broke \(result.rule.id) (\(result.rule.statement))"
    if case .failed(let reason) = result.outcome { text += ": \(reason)" }
    if !message.isEmpty { text += " - \(message)" }
    return text
  }
}
