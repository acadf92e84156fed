import Dispatch
import StreamCore
import StreamTesting
import Testing

/// A non-`Sendable` output: `expectCompletion` and `expectFailure` must accept it.
private final class Unshared {}

/// Whether `issue` was recorded at `line` of this file and mentions `text`.
private func issue(_ issue: Issue, isAt line: Int, mentioning text: String) -> Bool {
  issue.sourceLocation?.line == line && issue.sourceLocation?.fileID == #fileID
    && issue.comments.contains { $0.rawValue.contains(text) }
}

/// The async `expect…` helpers for Swift Testing. Failing cases run inside `withKnownIssue`,
/// whose matcher checks the message and that the issue points at the calling line; a case that
/// records no issue, or another one, fails.
///
/// Cases that pass wait up to a minute, which ends as soon as the publisher finishes: another
/// thread sends, and on a loaded machine it may take a while to run. The timeout cases send
/// synchronously, so only the timeout itself is timed.
@Suite(.timeLimit(.minutes(5))) struct SwiftTestingExpectationsTests {
  // MARK: expectAll

  @Test func expectAll_synchronousSequence_returnsEveryValue() async {
    #expect(await [1, 2, 3].publisher.expectAll(timeout: .seconds(60)) == [1, 2, 3])
  }

  @Test func expectAll_subjectSendingFromAnotherThread_returnsEveryValue() async {
    let subject = PassthroughSubject<Int, TestError>()
    let source = subject.afterSubscribing {
      subject.send(1)
      subject.send(2)
      subject.send(completion: .finished)
    }
    #expect(await source.expectAll(timeout: .seconds(60)) == [1, 2])
  }

  @MainActor @Test func expectAll_fromTheMainActor_returnsEveryValue() async {
    let subject = PassthroughSubject<Int, Never>()
    let source = subject.afterSubscribing {
      subject.send(1)
      subject.send(completion: .finished)
    }
    #expect(await source.expectAll(timeout: .seconds(60)) == [1])
  }

  @Test func expectAll_failure_recordsIssueAndReturnsEmpty() async {
    let subject = PassthroughSubject<Int, TestError>()
    let source = subject.afterSubscribing {
      subject.send(1)
      subject.send(completion: .failure(TestError()))
    }
    var values: [Int]?
    let line = #line + 2
    await withKnownIssue {
      values = await source.expectAll(timeout: .seconds(60))
    } matching: {
      issue($0, isAt: line, mentioning: "instead it failed with TestError() after 1 value")
    }
    #expect(values == [])
  }

  @Test func expectAll_timeout_recordsIssueCancelsAndReturnsEmpty() async {
    let upstream = TestPublisher<Int, Never>()
    let source = upstream.whenSubscribed { upstream.send(1) }
    var values: [Int]?
    let line = #line + 2
    await withKnownIssue {
      values = await source.expectAll(timeout: .milliseconds(200))
    } matching: {
      issue($0, isAt: line, mentioning: "instead it timed out after 0.2 seconds, after 1 value")
    }
    #expect(values == [])
    #expect(upstream.requests == [.demand(.unlimited), .cancel])
  }

  @Test func expectAll_cancelledTask_recordsIssueCancelsAndReturnsEmpty() async {
    let upstream = TestPublisher<Int, Never>()
    var values: [Int]?
    let line = #line + 3
    await withKnownIssue {
      let task = Task {
        await upstream.expectAll(timeout: .seconds(60))
      }
      task.cancel()
      values = await task.value
    } matching: {
      issue($0, isAt: line, mentioning: "the test's task was cancelled while waiting")
    }
    #expect(values == [])
    #expect(upstream.requests == [.demand(.unlimited), .cancel])
  }

  // MARK: expectAtLeast

  @Test func expectAtLeast_synchronousSequence_returnsTheFirstValuesAndChecksEach() async {
    var checked: [Int] = []
    let values = await [1, 2, 3, 4, 5].publisher.expectAtLeast(values: 3, timeout: .seconds(60)) {
      checked.append($0)
    }
    #expect(values == [1, 2, 3])
    #expect(checked == [1, 2, 3])
  }

  @Test func expectAtLeast_publisherThatNeverFinishes_returnsAndCancels() async {
    let upstream = TestPublisher<Int, Never>()
    let source = upstream.afterSubscribing {
      for value in 1...3 { upstream.send(value) }
    }
    #expect(await source.expectAtLeast(values: 3, timeout: .seconds(60)) == [1, 2, 3])
    #expect(upstream.requests == [.demand(.max(3)), .cancel])
  }

  @Test func expectAtLeast_finishesTooEarly_recordsIssueChecksWhatCameAndReturnsEmpty() async {
    var checked: [Int] = []
    var values: [Int]?
    let line = #line + 2
    await withKnownIssue {
      values = await [1, 2].publisher.expectAtLeast(values: 3, timeout: .seconds(60)) {
        checked.append($0)
      }
    } matching: {
      issue($0, isAt: line, mentioning: "instead it finished after only 2 of 3 values")
    }
    #expect(values == [])
    #expect(checked == [1, 2])
  }

  @Test func expectAtLeast_zeroValues_recordsIssueWithoutSubscribing() async {
    let upstream = TestPublisher<Int, Never>()
    var values: [Int]?
    let line = #line + 2
    await withKnownIssue {
      values = await upstream.expectAtLeast(values: 0, timeout: .seconds(60))
    } matching: {
      issue($0, isAt: line, mentioning: "needs at least 1 value")
    }
    #expect(values == [])
    #expect(upstream.subscriptionCount == 0)
  }

  // MARK: expectCompletion

  @Test func expectCompletion_justAndLaterSubject_pass() async {
    await Just(1).expectCompletion(timeout: .seconds(60))
    let subject = PassthroughSubject<Int, TestError>()
    let source = subject.afterSubscribing {
      subject.send(1)
      subject.send(completion: .finished)
    }
    await source.expectCompletion(timeout: .seconds(60))
  }

  @Test func expectCompletion_nonSendableOutput_passes() async {
    await Just(Unshared()).expectCompletion(timeout: .seconds(60))
  }

  @Test func expectCompletion_failure_recordsIssue() async {
    let line = #line + 2
    await withKnownIssue {
      await Fail<Int, TestError>(error: TestError()).expectCompletion(timeout: .seconds(60))
    } matching: {
      issue($0, isAt: line, mentioning: "instead it failed with TestError()")
    }
  }

  @Test func expectCompletion_timeout_recordsIssueAndCancels() async {
    let upstream = TestPublisher<Int, Never>()
    let line = #line + 2
    await withKnownIssue {
      await upstream.expectCompletion(timeout: .milliseconds(200))
    } matching: {
      issue($0, isAt: line, mentioning: "finish successfully; instead it timed out")
    }
    #expect(upstream.requests == [.demand(.unlimited), .cancel])
  }

  // MARK: expectFailure

  @Test func expectFailure_fail_returnsTheError() async {
    #expect(
      await Fail<Int, TestError>(error: TestError()).expectFailure(timeout: .seconds(60))
        == TestError()
    )
  }

  @Test func expectFailure_nonSendableOutputFailingLater_returnsTheError() async {
    let subject = PassthroughSubject<Unshared, TestError>()
    let source = subject.afterSubscribing { subject.send(completion: .failure(TestError())) }
    #expect(await source.expectFailure(timeout: .seconds(60)) == TestError())
  }

  @Test func expectFailure_finished_recordsIssueAndReturnsNil() async {
    var error: TestError? = TestError()
    let line = #line + 2
    await withKnownIssue {
      error = await Empty<Int, TestError>().expectFailure(timeout: .seconds(60))
    } matching: {
      issue($0, isAt: line, mentioning: "instead it finished successfully")
    }
    #expect(error == nil)
  }

  // MARK: expectOne

  @Test func expectOne_just_returnsTheValue() async {
    #expect(await Just(7).expectOne(timeout: .seconds(60)) == 7)
  }

  @Test func expectOne_subjectSendingLater_returnsTheValue() async {
    let subject = PassthroughSubject<Int, Never>()
    let source = subject.afterSubscribing {
      subject.send(7)
      subject.send(completion: .finished)
    }
    #expect(await source.expectOne(timeout: .seconds(60)) == 7)
  }

  @Test func expectOne_noValue_recordsIssueAndReturnsNil() async {
    var value: Int? = 0
    let line = #line + 2
    await withKnownIssue {
      value = await Empty<Int, Never>().expectOne(timeout: .seconds(60))
    } matching: {
      issue($0, isAt: line, mentioning: "instead it finished without a value")
    }
    #expect(value == nil)
  }

  @Test func expectOne_secondValue_failsAtOnceCancelsAndReturnsNil() async {
    let upstream = TestPublisher<Int, Never>()
    let source = upstream.afterSubscribing {
      upstream.send(1)
      upstream.send(2)
    }
    var value: Int? = 0
    let clock = ContinuousClock()
    let start = clock.now
    let line = #line + 2
    await withKnownIssue {
      value = await source.expectOne(timeout: .seconds(600))
    } matching: {
      issue($0, isAt: line, mentioning: "instead it sent a second value, 2, before finishing")
    }
    #expect(value == nil)
    #expect(upstream.requests == [.demand(.unlimited), .cancel])
    // Far below the timeout: other tests may hold the cooperative pool's two threads for a while
    // (seen: 25 s under ThreadSanitizer), but only a helper that waits out the timeout takes 600 s.
    #expect(clock.now - start < .seconds(300), "it should not wait out the timeout")
  }

  @Test func expectOne_failure_recordsIssueAndReturnsNil() async {
    var value: Int? = 0
    let line = #line + 2
    await withKnownIssue {
      value = await Fail<Int, TestError>(error: TestError()).expectOne(timeout: .seconds(60))
    } matching: {
      issue($0, isAt: line, mentioning: "instead it failed with TestError()")
    }
    #expect(value == nil)
  }
}
