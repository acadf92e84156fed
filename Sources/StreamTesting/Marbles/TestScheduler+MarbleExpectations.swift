public import StreamCore

#if canImport(Testing)
public import Testing

extension TestScheduler where SchedulerTimeType == VirtualTime, SchedulerOptions == Never {
  /// Subscribes to `publisher`, runs the scheduler until nothing is left to do, and records
  /// one issue if the publisher did not send what the marble line `expected` says.
  ///
  /// ```swift
  /// @Test func debounce_waitsForAQuietFrame() {
  ///   let scheduler = TestScheduler()
  ///   let input = scheduler.hot("-ab---c---|")
  ///   scheduler.expectMarbles(
  ///     input.debounce(for: 2, scheduler: scheduler),
  ///     "----b---c-|")
  /// }
  /// ```
  ///
  /// Frame 0 is ``now`` when the expectation starts; a frame is ``marbleFrame`` long. The test's
  /// subscriber subscribes at frame 0 and requests `.unlimited`, unless `demand` says otherwise
  /// (a ``SubscriptionTimeline`` line such as `"(^1)---1"`); each of its calls comes first in its
  /// frame. The expectation then runs the scheduler until no action is left (at most 100,000
  /// actions) and compares every value, completion and instant with `expected`. Values are
  /// compared with `==`, errors with `==` when they are `Equatable`.
  ///
  /// On a difference it records one issue at `sourceLocation`, never crashing: the expected
  /// and actual lines one above the other (each cut after 200 characters), the first differing
  /// event, any contract break, and the subscription log of every marble publisher made on this
  /// scheduler. A line that does
  /// not parse, here or in a marble publisher, is reported the same way.
  ///
  /// > Thread safety: Call it from the test's thread; it runs the scheduler's actions there.
  ///
  /// - Parameters:
  ///   - publisher: The publisher under test; it must run on this scheduler.
  ///   - expected: What it sends, as a marble line.
  ///   - values: The value each character stands for; for `String` and `Character` outputs a
  ///     character not in it stands for itself.
  ///   - error: The error `#` stands for.
  ///   - demand: When the test's subscriber subscribes, requests and cancels; `nil` for
  ///     `"(^*)"`.
  ///   - sourceLocation: Where a failure is recorded; the caller's location by default.
  /// - Returns: Whether the publisher sent what was expected.
  @discardableResult
  public func expectMarbles<P: Publisher>(
    _ publisher: P,
    _ expected: String,
    values: [Character: P.Output] = [:],
    error: P.Failure? = nil,
    demand: String? = nil,
    sourceLocation: SourceLocation = #_sourceLocation
  ) -> Bool where P.Output: Equatable {
    let message = MarbleExpectation.evaluate(
      publisher,
      expected: expected,
      values: values,
      error: error,
      demand: demand,
      scheduler: self
    )
    guard let message else { return true }
    Issue.record(Comment(rawValue: message), sourceLocation: sourceLocation)
    return false
  }
}
#endif

#if canImport(XCTest)
import XCTest

extension TestScheduler where SchedulerTimeType == VirtualTime, SchedulerOptions == Never {
  /// Subscribes to `publisher`, runs the scheduler until nothing is left to do, and records
  /// one XCTest failure if the publisher did not send what the marble line `expected` says.
  ///
  /// ```swift
  /// func testDebounceWaitsForAQuietFrame() {
  ///   let scheduler = TestScheduler()
  ///   let input = scheduler.hot("-ab---c---|")
  ///   scheduler.expectsMarbles(
  ///     input.debounce(for: 2, scheduler: scheduler),
  ///     "----b---c-|")
  /// }
  /// ```
  ///
  /// It works as the Swift Testing form, ``expectMarbles(_:_:values:error:demand:sourceLocation:)``,
  /// and on a difference records one failure with `XCTFail` at `file`/`line`, never crashing.
  ///
  /// > Thread safety: Call it from the test's thread; it runs the scheduler's actions there.
  ///
  /// - Parameters:
  ///   - publisher: The publisher under test; it must run on this scheduler.
  ///   - expected: What it sends, as a marble line.
  ///   - values: The value each character stands for; for `String` and `Character` outputs a
  ///     character not in it stands for itself.
  ///   - error: The error `#` stands for.
  ///   - demand: When the test's subscriber subscribes, requests and cancels; `nil` for
  ///     `"(^*)"`.
  ///   - file: The file the failure is recorded in; the caller's by default.
  ///   - line: The line the failure is recorded at; the caller's by default.
  /// - Returns: Whether the publisher sent what was expected.
  @discardableResult
  public func expectsMarbles<P: Publisher>(
    _ publisher: P,
    _ expected: String,
    values: [Character: P.Output] = [:],
    error: P.Failure? = nil,
    demand: String? = nil,
    file: StaticString = #filePath,
    line: UInt = #line
  ) -> Bool where P.Output: Equatable {
    let message = MarbleExpectation.evaluate(
      publisher,
      expected: expected,
      values: values,
      error: error,
      demand: demand,
      scheduler: self
    )
    guard let message else { return true }
    XCTFail(message, file: file, line: line)
    return false
  }
}
#endif
