import Dispatch
import StreamCore
import StreamTesting
import XCTest

#if canImport(Darwin)
import Foundation  // `URL.path`, for `XCTIssue` locations
#endif

/// The `expects…` helpers for XCTest.
///
/// swift-corelibs-xctest (the Linux XCTest) has no `XCTExpectFailure`, so failing cases run inside
/// `capturingFailures { }`: while it runs, this class's `recordFailure` override (or `record(_:)`
/// on Apple platforms) keeps each failure instead of failing the test, and the test then checks
/// the failures it kept: how many, their message, and that they point at the calling line.
final class XCTestExpectationsTests: XCTestCase {
  private struct RecordedFailure {
    var description: String
    var file: String
    var line: Int
  }

  /// `nil` while failures go to XCTest as usual; an array while `capturingFailures` runs.
  private let captured = LockedState<[RecordedFailure]?>(nil)

  #if canImport(Darwin)
  override func record(_ issue: XCTIssue) {
    let failure = RecordedFailure(
      description: issue.compactDescription,
      file: issue.sourceCodeContext.location?.fileURL.path ?? "",
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
    let failure = RecordedFailure(description: description, file: filePath, line: lineNumber)
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

  /// Checks that exactly one failure was recorded, at `line` of this file, mentioning `text`.
  private func assertOneFailure(
    _ failures: [RecordedFailure],
    at line: Int,
    mentioning text: String,
    file: StaticString = #filePath,
    testLine: UInt = #line
  ) {
    XCTAssertEqual(failures.count, 1, "\(failures.map(\.description))", file: file, line: testLine)
    guard let failure = failures.first else { return }
    XCTAssertEqual(failure.file, "\(#filePath)", file: file, line: testLine)
    XCTAssertEqual(failure.line, line, file: file, line: testLine)
    XCTAssertTrue(
      failure.description.contains(text),
      "\"\(failure.description)\" doesn't mention \"\(text)\"",
      file: file,
      line: testLine
    )
  }

  // MARK: expectsAll

  func testExpectsAll_synchronousSequence_returnsEveryValue() {
    XCTAssertEqual([1, 2, 3].publisher.expectsAll(timeout: 60, on: self), [1, 2, 3])
  }

  func testExpectsAll_emptyPublisher_returnsNoValues() {
    XCTAssertEqual(Empty<Int, Never>().expectsAll(timeout: 60, on: self), [])
  }

  func testExpectsAll_subjectSendingFromAnotherThread_returnsEveryValue() {
    let subject = PassthroughSubject<Int, TestError>()
    let source = subject.afterSubscribing {
      subject.send(1)
      subject.send(2)
      subject.send(completion: .finished)
    }
    XCTAssertEqual(source.expectsAll(timeout: 60, on: self), [1, 2])
  }

  func testExpectsAll_failure_recordsFailureAndReturnsEmpty() {
    let subject = PassthroughSubject<Int, TestError>()
    let source = subject.afterSubscribing {
      subject.send(1)
      subject.send(completion: .failure(TestError()))
    }
    let line = #line + 1
    let (values, failures) = capturingFailures { source.expectsAll(timeout: 60, on: self) }
    XCTAssertEqual(values, [])
    assertOneFailure(failures, at: line, mentioning: "failed with TestError() after 1 value")
  }

  func testExpectsAll_timeout_recordsFailureCancelsAndReturnsEmpty() {
    let upstream = TestPublisher<Int, Never>()
    let source = upstream.whenSubscribed { upstream.send(1) }
    let line = #line + 1
    let (values, failures) = capturingFailures { source.expectsAll(timeout: 0.2, on: self) }
    XCTAssertEqual(values, [])
    assertOneFailure(
      failures,
      at: line,
      mentioning: "and then finishes; instead it timed out after 0.2 seconds, after 1 value"
    )
    XCTAssertEqual(upstream.requests, [.demand(.unlimited), .cancel])
  }

  // MARK: expectsAtLeast

  func testExpectsAtLeast_synchronousSequence_returnsTheFirstValuesAndChecksEach() {
    var checked: [Int] = []
    let values = [1, 2, 3, 4, 5].publisher.expectsAtLeast(values: 3, timeout: 60, on: self) {
      checked.append($0)
    }
    XCTAssertEqual(values, [1, 2, 3])
    XCTAssertEqual(checked, [1, 2, 3])
  }

  func testExpectsAtLeast_publisherThatNeverFinishes_returnsAndCancels() {
    let upstream = TestPublisher<Int, Never>()
    let source = upstream.afterSubscribing {
      for value in 1...3 { upstream.send(value) }
    }
    XCTAssertEqual(source.expectsAtLeast(values: 3, timeout: 60, on: self), [1, 2, 3])
    XCTAssertEqual(upstream.requests, [.demand(.max(3)), .cancel])
  }

  func testExpectsAtLeast_finishesTooEarly_recordsFailureChecksWhatCameAndReturnsEmpty() {
    var checked: [Int] = []
    let line = #line + 2
    let (values, failures) = capturingFailures {
      [1, 2].publisher.expectsAtLeast(values: 3, timeout: 60, on: self) { checked.append($0) }
    }
    XCTAssertEqual(values, [])
    XCTAssertEqual(checked, [1, 2])
    assertOneFailure(failures, at: line, mentioning: "finished after only 2 of 3 values")
  }

  func testExpectsAtLeast_failure_recordsFailureAndReturnsEmpty() {
    let subject = PassthroughSubject<Int, TestError>()
    let source = subject.afterSubscribing {
      subject.send(1)
      subject.send(completion: .failure(TestError()))
    }
    let line = #line + 2
    let (values, failures) = capturingFailures {
      source.expectsAtLeast(values: 2, timeout: 60, on: self)
    }
    XCTAssertEqual(values, [])
    assertOneFailure(failures, at: line, mentioning: "failed with TestError() after 1 of 2 values")
  }

  func testExpectsAtLeast_zeroValues_recordsFailureWithoutSubscribing() {
    let upstream = TestPublisher<Int, Never>()
    let line = #line + 2
    let (values, failures) = capturingFailures {
      upstream.expectsAtLeast(values: 0, timeout: 60, on: self)
    }
    XCTAssertEqual(values, [])
    assertOneFailure(failures, at: line, mentioning: "needs at least 1 value")
    XCTAssertEqual(upstream.subscriptionCount, 0)
  }

  // MARK: expectsCompletion

  func testExpectsCompletion_justAndLaterSubject_pass() {
    let (_, failures) = capturingFailures {
      Just(1).expectsCompletion(timeout: 60, on: self)
      let subject = PassthroughSubject<Int, TestError>()
      let source = subject.afterSubscribing {
        subject.send(1)
        subject.send(completion: .finished)
      }
      source.expectsCompletion(timeout: 60, on: self)
    }
    XCTAssertEqual(failures.count, 0, "\(failures.map(\.description))")
  }

  func testExpectsCompletion_failure_recordsFailure() {
    let line = #line + 2
    let (_, failures) = capturingFailures {
      Fail<Int, TestError>(error: TestError()).expectsCompletion(timeout: 60, on: self)
    }
    assertOneFailure(failures, at: line, mentioning: "instead it failed with TestError()")
  }

  func testExpectsCompletion_timeout_recordsFailureAndCancels() {
    let upstream = TestPublisher<Int, Never>()
    let line = #line + 1
    let (_, failures) = capturingFailures { upstream.expectsCompletion(timeout: 0.2, on: self) }
    assertOneFailure(
      failures,
      at: line,
      mentioning: "The publisher finishes successfully; instead it timed out after 0.2 seconds"
    )
    XCTAssertEqual(upstream.requests, [.demand(.unlimited), .cancel])
  }

  // MARK: expectsFailure

  func testExpectsFailure_fail_returnsTheError() {
    XCTAssertEqual(
      Fail<Int, TestError>(error: TestError()).expectsFailure(timeout: 60, on: self),
      TestError()
    )
  }

  func testExpectsFailure_subjectFailingLater_returnsTheError() {
    let subject = PassthroughSubject<Int, TestError>()
    let source = subject.afterSubscribing {
      subject.send(1)
      subject.send(completion: .failure(TestError()))
    }
    XCTAssertEqual(source.expectsFailure(timeout: 60, on: self), TestError())
  }

  func testExpectsFailure_finished_recordsFailureAndReturnsNil() {
    let line = #line + 2
    let (error, failures) = capturingFailures {
      Empty<Int, TestError>().expectsFailure(timeout: 60, on: self)
    }
    XCTAssertNil(error)
    assertOneFailure(failures, at: line, mentioning: "instead it finished successfully")
  }

  // MARK: expectsOne

  func testExpectsOne_just_returnsTheValue() {
    XCTAssertEqual(Just(7).expectsOne(timeout: 60, on: self), 7)
  }

  func testExpectsOne_subjectSendingLater_returnsTheValue() {
    let subject = PassthroughSubject<Int, Never>()
    let source = subject.afterSubscribing {
      subject.send(7)
      subject.send(completion: .finished)
    }
    XCTAssertEqual(source.expectsOne(timeout: 60, on: self), 7)
  }

  func testExpectsOne_noValue_recordsFailureAndReturnsNil() {
    let line = #line + 2
    let (value, failures) = capturingFailures {
      Empty<Int, Never>().expectsOne(timeout: 60, on: self)
    }
    XCTAssertNil(value)
    assertOneFailure(failures, at: line, mentioning: "finished without a value")
  }

  func testExpectsOne_secondValue_failsAtOnceCancelsAndReturnsNil() {
    let upstream = TestPublisher<Int, Never>()
    let source = upstream.afterSubscribing {
      upstream.send(1)
      upstream.send(2)
    }
    let start = DispatchTime.now()
    let line = #line + 1
    let (value, failures) = capturingFailures { source.expectsOne(timeout: 600, on: self) }
    let elapsed = DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds
    XCTAssertNil(value)
    assertOneFailure(failures, at: line, mentioning: "sent a second value, 2")
    XCTAssertEqual(upstream.requests, [.demand(.unlimited), .cancel])
    // Far below the timeout: on a loaded machine the sending thread may be slow to run, but only
    // a helper that waits out the timeout takes 600 s.
    XCTAssertLessThan(elapsed, 300_000_000_000, "it should not wait out the timeout")
  }

  func testExpectsOne_failure_recordsFailureAndReturnsNil() {
    let line = #line + 2
    let (value, failures) = capturingFailures {
      Fail<Int, TestError>(error: TestError()).expectsOne(timeout: 60, on: self)
    }
    XCTAssertNil(value)
    assertOneFailure(
      failures,
      at: line,
      mentioning: "and then finishes; instead it failed with TestError()"
    )
  }

  // MARK: wait(seconds:)

  func testWaitSeconds_waitsWithoutFailingWhileOtherThreadsDeliver() {
    let subject = PassthroughSubject<Int, Never>()
    let received = LockedState<[Int]>([])
    let delivered = DispatchSemaphore(value: 0)
    let cancellable = subject.sink { value in
      received.withLock { $0.append(value) }
      delivered.signal()
    }
    DispatchQueue.global().async { subject.send(1) }
    let start = DispatchTime.now()
    let (_, failures) = capturingFailures { wait(seconds: 0.1) }
    let elapsed = DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds
    XCTAssertEqual(failures.count, 0, "\(failures.map(\.description))")
    XCTAssertGreaterThanOrEqual(elapsed, 100_000_000)
    // The other thread's delivery isn't held up by the wait (on a busy machine it may still be
    // on its way when the wait ends).
    XCTAssertEqual(delivered.wait(timeout: .now() + 30), .success)
    XCTAssertEqual(received.withLock { $0 }, [1])
    cancellable.cancel()
  }

  func testWaitSeconds_nonPositiveInterval_recordsFailureAndReturns() {
    let line = #line + 1
    let (_, failures) = capturingFailures { wait(seconds: 0) }
    assertOneFailure(failures, at: line, mentioning: "needs a positive, finite interval")
  }
}
