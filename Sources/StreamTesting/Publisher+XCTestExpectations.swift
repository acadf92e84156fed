public import StreamCore

#if canImport(XCTest)
public import XCTest

// XCTest expectation helpers: subscribe, wait with an `XCTWaiter`, return what arrived.
//
// Each helper blocks the calling thread in `XCTWaiter.wait(for:timeout:)`, which keeps the
// current run loop turning, so a publisher may send from any thread, including the main queue
// when the test runs on the main thread. It stops waiting as soon as the expectation is decided,
// passed or failed, or when `timeout` passes, then cancels its subscription.
//
// A failed expectation never crashes: the helper records exactly one failure with
// `XCTFail(_:file:line:)` at the caller's `file`/`line` (a timeout too, so that it names what
// arrived and points at the caller on every platform) and returns `[]`, `nil` or nothing.
// Failures are recorded on the calling thread after the wait, never from the publisher's thread.
//
// `test`, the `on:` argument, is kept from Conbini's signatures so that call sites carry over.
// The waiter gets no delegate, since a delegate would report the timeout a second time, without
// the caller's location; `XCTFail` reports to the running test, which is usually `test`.

extension Publisher {
  /// Waits for the publisher to finish successfully and returns every value it sent.
  ///
  /// ```swift
  /// func testLoadsAllPages() {
  ///   let pages = loader.pages().expectsAll(timeout: 1, on: self)
  ///   XCTAssertEqual(pages.count, 3)
  /// }
  /// ```
  ///
  /// The helper subscribes with unlimited demand and blocks until the publisher completes or
  /// `timeout` passes, then cancels its subscription.
  ///
  /// On failure it records one XCTest failure at `file`/`line` and returns `[]`, never crashing
  /// (Conbini's version calls `fatalError` when the publisher fails):
  /// - the publisher fails: `XCTFail`, naming the error and how many values came first;
  /// - `timeout` passes first (the failure says how many values had arrived; they are discarded).
  ///
  /// > Thread safety: The publisher may send from any thread. Call the helper from the test's
  /// > thread, not from `async` code: it blocks the thread while it waits.
  ///
  /// - Parameters:
  ///   - timeout: The longest time to wait for the completion, in seconds.
  ///   - test: The running test case, usually `self`; kept from Conbini's signature.
  ///   - description: Describes the expectation in failure messages.
  ///   - file: The file the failure is recorded in; the caller's by default.
  ///   - line: The line the failure is recorded at; the caller's by default.
  /// - Returns: The values, in order, or `[]` if the expectation failed.
  @available(*, noasync, message: "It blocks the thread; in async tests use expectAll(timeout:)")
  @discardableResult
  public func expectsAll(
    timeout: TimeInterval,
    on test: any XCTWaiterDelegate,
    _ description: String = "The publisher emits zero or more values and then finishes",
    file: StaticString = #filePath,
    line: UInt = #line
  ) -> [Output] {
    let outcome = waitForExpectation(
      .all,
      timeout: timeout,
      description,
      file: file,
      line: line
    )
    return outcome.passed ? outcome.values : []
  }

  /// Waits until the publisher has sent `values` values, then cancels it and returns them.
  ///
  /// ```swift
  /// func testTicksAtLeastThreeTimes() {
  ///   let ticks = timer.expectsAtLeast(values: 3, timeout: 1, on: self) { tick in
  ///     XCTAssertGreaterThan(tick, 0)
  ///   }
  ///   XCTAssertEqual(ticks.count, 3)
  /// }
  /// ```
  ///
  /// The helper requests `.max(values)` and cancels its subscription as soon as the last of
  /// them arrives, so it never returns more than `values` values. The publisher doesn't have to
  /// complete. `check` then runs on the calling thread, once for each value received, in order,
  /// also when the expectation failed, so its assertions are recorded on the test's thread.
  ///
  /// On failure it records one XCTest failure at `file`/`line` and returns `[]`, never crashing:
  /// - the publisher finishes or fails before sending `values` values: `XCTFail`, right away
  ///   (Conbini's version only notices at the timeout);
  /// - `timeout` passes first;
  /// - `values` is less than 1: `XCTFail`, without subscribing.
  ///
  /// > Thread safety: The publisher may send from any thread. Call the helper from the test's
  /// > thread, not from `async` code: it blocks the thread while it waits.
  ///
  /// - Parameters:
  ///   - values: How many values to wait for; at least 1.
  ///   - timeout: The longest time to wait for them, in seconds.
  ///   - test: The running test case, usually `self`; kept from Conbini's signature.
  ///   - description: Describes the expectation in failure messages.
  ///   - file: The file the failure is recorded in; the caller's by default.
  ///   - line: The line the failure is recorded at; the caller's by default.
  ///   - check: Called with each value received, after the wait, on the calling thread.
  /// - Returns: The first `values` values, in order, or `[]` if the expectation failed.
  @available(
    *,
    noasync,
    message: "It blocks the thread; in async tests use expectAtLeast(values:timeout:)"
  )
  @discardableResult
  public func expectsAtLeast(
    values: Int,
    timeout: TimeInterval,
    on test: any XCTWaiterDelegate,
    _ description: String = "The publisher emits at least the requested number of values",
    file: StaticString = #filePath,
    line: UInt = #line,
    foreach check: ((Output) -> Void)? = nil
  ) -> [Output] {
    guard values >= 1 else {
      XCTFail(
        "\(description); expectsAtLeast(values:) needs at least 1 value, not \(values)",
        file: file,
        line: line
      )
      return []
    }
    let outcome = waitForExpectation(
      .atLeast(values),
      timeout: timeout,
      description,
      file: file,
      line: line
    )
    if let check {
      outcome.values.forEach(check)
    }
    return outcome.passed ? outcome.values : []
  }

  /// Waits for the publisher to finish successfully, ignoring its values.
  ///
  /// ```swift
  /// func testSaveFinishes() {
  ///   store.save(document).expectsCompletion(timeout: 1, on: self)
  /// }
  /// ```
  ///
  /// The helper subscribes with unlimited demand and cancels its subscription before returning.
  ///
  /// On failure it records one XCTest failure at `file`/`line` and returns, never crashing:
  /// - the publisher fails: `XCTFail`, naming the error;
  /// - `timeout` passes first.
  ///
  /// > Thread safety: The publisher may send from any thread. Call the helper from the test's
  /// > thread, not from `async` code: it blocks the thread while it waits.
  ///
  /// - Parameters:
  ///   - timeout: The longest time to wait for the completion, in seconds.
  ///   - test: The running test case, usually `self`; kept from Conbini's signature.
  ///   - description: Describes the expectation in failure messages.
  ///   - file: The file the failure is recorded in; the caller's by default.
  ///   - line: The line the failure is recorded at; the caller's by default.
  @available(
    *,
    noasync,
    message: "It blocks the thread; in async tests use expectCompletion(timeout:)"
  )
  public func expectsCompletion(
    timeout: TimeInterval,
    on test: any XCTWaiterDelegate,
    _ description: String = "The publisher finishes successfully",
    file: StaticString = #filePath,
    line: UInt = #line
  ) {
    waitForExpectation(.completion, timeout: timeout, description, file: file, line: line)
  }

  /// Waits for the publisher to fail, ignoring its values, and returns the error.
  ///
  /// ```swift
  /// func testRejectsBadInput() {
  ///   let error = parser.parse("{").expectsFailure(timeout: 1, on: self)
  ///   XCTAssertEqual(error, .unexpectedEnd)
  /// }
  /// ```
  ///
  /// The helper subscribes with unlimited demand and cancels its subscription before returning.
  /// Conbini's version returns nothing; this one returns the error.
  ///
  /// On failure it records one XCTest failure at `file`/`line` and returns `nil`, never crashing:
  /// - the publisher finishes successfully: `XCTFail`;
  /// - `timeout` passes first.
  ///
  /// > Thread safety: The publisher may send from any thread. Call the helper from the test's
  /// > thread, not from `async` code: it blocks the thread while it waits.
  ///
  /// - Parameters:
  ///   - timeout: The longest time to wait for the failure, in seconds.
  ///   - test: The running test case, usually `self`; kept from Conbini's signature.
  ///   - description: Describes the expectation in failure messages.
  ///   - file: The file the failure is recorded in; the caller's by default.
  ///   - line: The line the failure is recorded at; the caller's by default.
  /// - Returns: The error the publisher failed with, or `nil` if the expectation failed.
  @available(
    *,
    noasync,
    message: "It blocks the thread; in async tests use expectFailure(timeout:)"
  )
  @discardableResult
  public func expectsFailure(
    timeout: TimeInterval,
    on test: any XCTWaiterDelegate,
    _ description: String = "The publisher fails",
    file: StaticString = #filePath,
    line: UInt = #line
  ) -> Failure? {
    let outcome = waitForExpectation(
      .failure,
      timeout: timeout,
      description,
      file: file,
      line: line
    )
    return outcome.passed ? outcome.failure : nil
  }

  /// Waits for exactly one value followed by a successful completion, and returns the value.
  ///
  /// ```swift
  /// func testFetchesTheUser() {
  ///   let user = api.user(id: 7).expectsOne(timeout: 1, on: self)
  ///   XCTAssertEqual(user?.name, "Ada")
  /// }
  /// ```
  ///
  /// The helper subscribes with unlimited demand, so that a second value is noticed, and cancels
  /// its subscription before returning. Unlike Conbini's version, which returns `Output` and
  /// crashes when there is none, it returns `Output?`.
  ///
  /// On failure it records one XCTest failure at `file`/`line` and returns `nil`, never crashing:
  /// - the publisher sends a second value: `XCTFail` right away, and the subscription is
  ///   cancelled (Conbini's version waits out the timeout and returns the first value);
  /// - it finishes without a value, or fails: `XCTFail`;
  /// - `timeout` passes first.
  ///
  /// > Thread safety: The publisher may send from any thread. Call the helper from the test's
  /// > thread, not from `async` code: it blocks the thread while it waits.
  ///
  /// - Parameters:
  ///   - timeout: The longest time to wait for the value and the completion, in seconds.
  ///   - test: The running test case, usually `self`; kept from Conbini's signature.
  ///   - description: Describes the expectation in failure messages.
  ///   - file: The file the failure is recorded in; the caller's by default.
  ///   - line: The line the failure is recorded at; the caller's by default.
  /// - Returns: The one value, or `nil` if the expectation failed.
  @available(*, noasync, message: "It blocks the thread; in async tests use expectOne(timeout:)")
  @discardableResult
  public func expectsOne(
    timeout: TimeInterval,
    on test: any XCTWaiterDelegate,
    _ description: String = "The publisher emits exactly one value and then finishes",
    file: StaticString = #filePath,
    line: UInt = #line
  ) -> Output? {
    let outcome = waitForExpectation(
      .one,
      timeout: timeout,
      description,
      file: file,
      line: line
    )
    return outcome.passed ? outcome.values.first : nil
  }

  /// Subscribes, waits until the expectation is decided or `timeout` passes, cancels, and records
  /// a failure unless the expectation passed.
  @discardableResult
  private func waitForExpectation(
    _ rule: PublisherExpectation<Output, Failure>.Rule,
    timeout: TimeInterval,
    _ description: String,
    file: StaticString,
    line: UInt
  ) -> PublisherExpectation<Output, Failure>.Outcome {
    let decided = XCTestExpectation(description: description)
    let expectation = PublisherExpectation<Output, Failure>(rule: rule) { decided.fulfill() }
    subscribe(expectation)
    _ = XCTWaiter().wait(for: [decided], timeout: timeout)
    // A decision that lands between the waiter giving up and `finish()` still counts.
    let outcome = expectation.finish()
    if let reason = outcome.failureReason(waitEnded: "it timed out after \(timeout) seconds") {
      XCTFail("\(description); instead \(reason)", file: file, line: line)
    }
    return outcome
  }
}

extension XCTestCase {
  /// Blocks the test for `seconds` while the run loop keeps turning, then returns.
  ///
  /// ```swift
  /// func testIgnoresLateValues() {
  ///   let recorder = RecordingSubscriber<Int, Never>()
  ///   subject.subscribe(recorder)
  ///   wait(seconds: 0.1)
  ///   XCTAssertEqual(recorder.values, [])
  /// }
  /// ```
  ///
  /// It waits on an inverted `XCTestExpectation` that nothing fulfils, so `XCTWaiter` returns
  /// after the interval without a failure; nothing sleeps. Work on other queues, and on the main
  /// queue when the test runs on the main thread, goes on meanwhile. Prefer a `TestScheduler` where the code
  /// under test accepts one: virtual time doesn't slow the suite down.
  ///
  /// If `seconds` isn't positive and finite, it records an XCTest failure at `file`/`line` and
  /// returns at once, never crashing (Conbini's version stops on a precondition).
  ///
  /// > Thread safety: Call it from the test's thread. Don't call it from `async` code: it blocks
  /// > the thread.
  ///
  /// - Parameters:
  ///   - seconds: How long to wait; more than 0.
  ///   - file: The file a failure is recorded in; the caller's by default.
  ///   - line: The line a failure is recorded at; the caller's by default.
  @available(*, noasync, message: "It blocks the thread; in async tests use Task.sleep(for:)")
  public func wait(seconds: TimeInterval, file: StaticString = #filePath, line: UInt = #line) {
    guard seconds > 0, seconds.isFinite else {
      XCTFail(
        "wait(seconds:) needs a positive, finite interval, not \(seconds)",
        file: file,
        line: line
      )
      return
    }
    let elapsed = XCTestExpectation(description: "\(seconds) seconds pass")
    elapsed.isInverted = true
    _ = XCTWaiter().wait(for: [elapsed], timeout: seconds)
  }
}
#endif
