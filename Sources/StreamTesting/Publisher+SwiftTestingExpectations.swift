public import StreamCore

#if canImport(Testing)
public import Testing

// Swift Testing expectation helpers: the async counterparts of the `expects…` XCTest helpers.
//
// Each helper subscribes, suspends (without blocking a thread) until the expectation is decided,
// `timeout` passes or the test's task is cancelled, then cancels its subscription. A failed
// expectation records one issue with `Issue.record(_:sourceLocation:)` at the caller's location
// and returns `[]`, `nil` or nothing; the helpers never throw and never crash. Issues are
// recorded from the test's task after the wait, never from the publisher's thread, so they are
// attributed to the running test.
//
// The helpers are `nonisolated(nonsending)`: they run in the caller's isolation, so a
// non-`Sendable` publisher can be tested from a `@MainActor` test. Helpers that return values
// require `Output: Sendable`, because those values are made on the publisher's thread and handed
// to the test's task; `expectCompletion` and `expectFailure` keep no values and work with any
// `Output`. (`Failure` is always `Sendable`, since `Error` is.)

extension Publisher where Output: Sendable {
  /// Waits for the publisher to finish successfully and returns every value it sent.
  ///
  /// ```swift
  /// @Test func loader_sendsThreePages() async {
  ///   let pages = await loader.pages().expectAll(timeout: .seconds(1))
  ///   #expect(pages.count == 3)
  /// }
  /// ```
  ///
  /// The helper subscribes with unlimited demand and suspends until the publisher completes or
  /// `timeout` passes, then cancels its subscription.
  ///
  /// On failure it records one issue at `sourceLocation` and returns `[]`:
  /// - the publisher fails (the issue names the error and how many values came first);
  /// - `timeout` passes first, or the test's task is cancelled; the values received so far are
  ///   discarded.
  ///
  /// > Thread safety: The publisher may send from any thread. The helper runs in the caller's
  /// > isolation and doesn't block a thread while it waits.
  ///
  /// - Parameters:
  ///   - timeout: The longest time to wait for the completion.
  ///   - sourceLocation: Where a failure is recorded; the caller's location by default.
  /// - Returns: The values, in order, or `[]` if the expectation failed.
  @discardableResult
  nonisolated(nonsending) public func expectAll(
    timeout: Duration,
    sourceLocation: SourceLocation = #_sourceLocation
  ) async -> [Output] {
    let outcome = await awaitExpectation(
      .all,
      "Expected the publisher to send zero or more values and then finish",
      timeout: timeout,
      sourceLocation: sourceLocation
    )
    return outcome.passed ? outcome.values : []
  }

  /// Waits until the publisher has sent `values` values, then cancels it and returns them.
  ///
  /// ```swift
  /// @Test func timer_ticksThreeTimes() async {
  ///   let ticks = await timer.expectAtLeast(values: 3, timeout: .seconds(1)) { tick in
  ///     #expect(tick > 0)
  ///   }
  ///   #expect(ticks.count == 3)
  /// }
  /// ```
  ///
  /// The helper requests `.max(values)` and cancels its subscription as soon as the last of them
  /// arrives, so it never returns more than `values` values. The publisher doesn't have to
  /// complete. `check` then runs in the caller's isolation, once for each value received, in
  /// order, also when the expectation failed, so `#expect` inside it is attributed to the test.
  ///
  /// On failure it records one issue at `sourceLocation` and returns `[]`:
  /// - the publisher finishes or fails before sending `values` values (noticed at once);
  /// - `timeout` passes first, or the test's task is cancelled;
  /// - `values` is less than 1 (without subscribing).
  ///
  /// > Thread safety: The publisher may send from any thread. The helper runs in the caller's
  /// > isolation and doesn't block a thread while it waits.
  ///
  /// - Parameters:
  ///   - values: How many values to wait for; at least 1.
  ///   - timeout: The longest time to wait for them.
  ///   - sourceLocation: Where a failure is recorded; the caller's location by default.
  ///   - check: Called with each value received, after the wait, in the caller's isolation.
  /// - Returns: The first `values` values, in order, or `[]` if the expectation failed.
  @discardableResult
  nonisolated(nonsending) public func expectAtLeast(
    values: Int,
    timeout: Duration,
    sourceLocation: SourceLocation = #_sourceLocation,
    foreach check: ((Output) -> Void)? = nil
  ) async -> [Output] {
    let description = "Expected the publisher to send at least \(values) values"
    guard values > 0 else {
      Issue.record(
        "expectAtLeast(values:) needs at least 1 value, not \(values)",
        sourceLocation: sourceLocation
      )
      return []
    }
    let outcome = await awaitExpectation(
      .atLeast(values),
      description,
      timeout: timeout,
      sourceLocation: sourceLocation
    )
    if let check {
      outcome.values.forEach(check)
    }
    return outcome.passed ? outcome.values : []
  }

  /// Waits for exactly one value followed by a successful completion, and returns the value.
  ///
  /// ```swift
  /// @Test func api_fetchesTheUser() async {
  ///   let user = await api.user(id: 7).expectOne(timeout: .seconds(1))
  ///   #expect(user?.name == "Ada")
  /// }
  /// ```
  ///
  /// The helper subscribes with unlimited demand, so that a second value is noticed, and cancels
  /// its subscription before returning.
  ///
  /// On failure it records one issue at `sourceLocation` and returns `nil`:
  /// - the publisher sends a second value (noticed at once; the subscription is cancelled);
  /// - it finishes without a value, or fails;
  /// - `timeout` passes first, or the test's task is cancelled.
  ///
  /// > Thread safety: The publisher may send from any thread. The helper runs in the caller's
  /// > isolation and doesn't block a thread while it waits.
  ///
  /// - Parameters:
  ///   - timeout: The longest time to wait for the value and the completion.
  ///   - sourceLocation: Where a failure is recorded; the caller's location by default.
  /// - Returns: The one value, or `nil` if the expectation failed.
  @discardableResult
  nonisolated(nonsending) public func expectOne(
    timeout: Duration,
    sourceLocation: SourceLocation = #_sourceLocation
  ) async -> Output? {
    let outcome = await awaitExpectation(
      .one,
      "Expected the publisher to send exactly one value and then finish",
      timeout: timeout,
      sourceLocation: sourceLocation
    )
    return outcome.passed ? outcome.values.first : nil
  }
}

extension Publisher {
  /// Waits for the publisher to finish successfully, ignoring its values.
  ///
  /// ```swift
  /// @Test func store_saveFinishes() async {
  ///   await store.save(document).expectCompletion(timeout: .seconds(1))
  /// }
  /// ```
  ///
  /// The helper subscribes with unlimited demand and cancels its subscription before returning.
  /// It keeps no values, so `Output` need not be `Sendable`.
  ///
  /// On failure it records one issue at `sourceLocation` and returns:
  /// - the publisher fails (the issue names the error);
  /// - `timeout` passes first, or the test's task is cancelled.
  ///
  /// > Thread safety: The publisher may send from any thread. The helper runs in the caller's
  /// > isolation and doesn't block a thread while it waits.
  ///
  /// - Parameters:
  ///   - timeout: The longest time to wait for the completion.
  ///   - sourceLocation: Where a failure is recorded; the caller's location by default.
  nonisolated(nonsending) public func expectCompletion(
    timeout: Duration,
    sourceLocation: SourceLocation = #_sourceLocation
  ) async {
    await awaitExpectation(
      .completion,
      "Expected the publisher to finish successfully",
      timeout: timeout,
      sourceLocation: sourceLocation
    )
  }

  /// Waits for the publisher to fail, ignoring its values, and returns the error.
  ///
  /// ```swift
  /// @Test func parser_rejectsAnUnclosedBrace() async {
  ///   let error = await parser.parse("{").expectFailure(timeout: .seconds(1))
  ///   #expect(error == .unexpectedEnd)
  /// }
  /// ```
  ///
  /// The helper subscribes with unlimited demand and cancels its subscription before returning.
  /// It keeps no values, so `Output` need not be `Sendable`.
  ///
  /// On failure it records one issue at `sourceLocation` and returns `nil`:
  /// - the publisher finishes successfully;
  /// - `timeout` passes first, or the test's task is cancelled.
  ///
  /// > Thread safety: The publisher may send from any thread. The helper runs in the caller's
  /// > isolation and doesn't block a thread while it waits.
  ///
  /// - Parameters:
  ///   - timeout: The longest time to wait for the failure.
  ///   - sourceLocation: Where a failure is recorded; the caller's location by default.
  /// - Returns: The error the publisher failed with, or `nil` if the expectation failed.
  @discardableResult
  nonisolated(nonsending) public func expectFailure(
    timeout: Duration,
    sourceLocation: SourceLocation = #_sourceLocation
  ) async -> Failure? {
    let outcome = await awaitExpectation(
      .failure,
      "Expected the publisher to fail",
      timeout: timeout,
      sourceLocation: sourceLocation
    )
    return outcome.passed ? outcome.failure : nil
  }

  /// Subscribes, suspends until the expectation is decided, `timeout` passes or the task is
  /// cancelled, cancels, and records an issue unless the expectation passed.
  @discardableResult
  nonisolated(nonsending) private func awaitExpectation(
    _ rule: PublisherExpectation<Output, Failure>.Rule,
    _ description: String,
    timeout: Duration,
    sourceLocation: SourceLocation
  ) async -> PublisherExpectation<Output, Failure>.Outcome {
    let wakeUp = WakeUp()
    let expectation = PublisherExpectation<Output, Failure>(rule: rule) { wakeUp.signal() }
    subscribe(expectation)
    await withTaskGroup(of: Void.self) { group in
      // The deadline only: the wait ends earlier when the expectation is decided.
      group.addTask {
        try? await Task.sleep(for: timeout)
        wakeUp.signal()
      }
      await withTaskCancellationHandler {
        await wakeUp.wait()
      } onCancel: {
        wakeUp.signal()
      }
      group.cancelAll()
    }
    let outcome = expectation.finish()
    let reason = outcome.failureReason(
      waitEnded: Task.isCancelled
        ? "the test's task was cancelled while waiting" : "it timed out after \(timeout)"
    )
    if let reason {
      Issue.record("\(description); instead \(reason)", sourceLocation: sourceLocation)
    }
    return outcome
  }
}

/// Resumes one waiting task exactly once, whether `signal()` comes before or after `wait()`,
/// and however many times it is called.
// Sendable: all mutable state is guarded by `lock`; the continuation is resumed after it is
// released.
private final class WakeUp: @unchecked Sendable {
  private enum State {
    case waiting(CheckedContinuation<Void, Never>?)
    case signalled
  }

  private let lock = Lock()
  private var state = State.waiting(nil)

  func signal() {
    let continuation = lock.withLock { () -> CheckedContinuation<Void, Never>? in
      guard case .waiting(let continuation) = state else { return nil }
      state = .signalled
      return continuation
    }
    continuation?.resume()
  }

  /// Returns once `signal()` has been called; call it once.
  func wait() async {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      let resumeNow = lock.withLock { () -> Bool in
        guard case .waiting = state else { return true }
        state = .waiting(continuation)
        return false
      }
      if resumeNow { continuation.resume() }
    }
  }
}
#endif
