import StreamCore
import StreamTesting
import XCTest

/// The conformance kit from XCTest. (swift-corelibs-xctest has no `XCTExpectFailure`, so the
/// failing path of `assertAllPassed` is covered from Swift Testing through `issueText`.)
final class ConformanceKitXCTests: XCTestCase {
  func testJust_passesEveryRule() {
    PublisherConformance(elements: 1) { Just(1) }.run().assertAllPassed(skipping: [
      "SC-1.05", "SC-2.04", "SC-3.02",
    ])
  }

  func testSequence_passesEveryRule() {
    PublisherConformance(elements: 3) { [1, 2, 3].publisher }
      .run()
      .assertAllPassed("[1, 2, 3].publisher", skipping: ["SC-1.05", "SC-2.04"])
  }
}
