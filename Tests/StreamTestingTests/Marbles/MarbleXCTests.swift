import SignalOperators
import StreamCore
import StreamTesting
import XCTest

/// `expectsMarbles` for XCTest. As in `XCTestExpectationsTests`, a failing case runs inside
/// `capturingFailures { }`, which keeps the failures XCTest records so the test can check them.
final class MarbleXCTests: XCTestCase {
  private struct RecordedFailure {
    var description: String
    var line: Int
  }

  /// `nil` while failures go to XCTest as usual; an array while `capturingFailures` runs.
  private let captured = LockedState<[RecordedFailure]?>(nil)

  #if canImport(Darwin)
  override func record(_ issue: XCTIssue) {
    let failure = RecordedFailure(
      description: issue.compactDescription,
      line: issue.sourceCodeContext.location?.lineNumber ?? 0
    )
    if !keep(failure) { super.record(issue) }
  }
  #else
  override func recordFailure(
    withDescription description: String,
    inFile filePath: String,
    atLine lineNumber: Int,
    expected: Bool
  ) {
    let failure = RecordedFailure(description: description, line: lineNumber)
    if !keep(failure) {
      super.recordFailure(
        withDescription: description,
        inFile: filePath,
        atLine: lineNumber,
        expected: expected
      )
    }
  }
  #endif

  private func keep(_ failure: RecordedFailure) -> Bool {
    captured.withLock { failures in
      guard failures != nil else { return false }
      failures?.append(failure)
      return true
    }
  }

  private func capturingFailures<T>(_ body: () -> T) -> (result: T, failures: [RecordedFailure]) {
    captured.withLock { $0 = [] }
    let result = body()
    let failures = captured.withLock { failures in
      defer { failures = nil }
      return failures ?? []
    }
    return (result, failures)
  }

  func testMatchingOutput_passes() {
    let scheduler = TestScheduler()
    let input = scheduler.hot("-a-b|")
    let (passed, failures) = capturingFailures {
      scheduler.expectsMarbles(input.map { $0.uppercased() }, "-A-B|")
    }
    XCTAssertTrue(passed)
    XCTAssertEqual(failures.count, 0)
  }

  func testDifference_recordsOneFailureWithAlignedLines() {
    let scheduler = TestScheduler()
    let input = scheduler.hot("-a-b|")
    let line = #line + 1
    let (passed, failures) = capturingFailures { scheduler.expectsMarbles(input, "-ab|") }
    XCTAssertFalse(passed)
    XCTAssertEqual(failures.count, 1)
    XCTAssertEqual(failures.first?.line, line)
    XCTAssertTrue(
      failures.first?.description.contains("  expected: -ab|\n  actual:   -a-b|") == true,
      failures.first?.description ?? "no failure"
    )
  }
}
