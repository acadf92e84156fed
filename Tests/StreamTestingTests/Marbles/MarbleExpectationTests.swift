import SignalOperators
import StreamCombineSchedulers
import StreamCore
import StreamTesting
import Testing

/// Whether `issue` was recorded at `line` of this file and its message is `text`.
private func issue(_ issue: Issue, isAt line: Int, saying text: String) -> Bool {
  issue.sourceLocation?.line == line && issue.sourceLocation?.fileID == #fileID
    && issue.comments.map(\.rawValue) == [text]
}

/// Whether `issue` was recorded at `line` of this file and mentions `text`.
private func issue(_ issue: Issue, isAt line: Int, mentioning text: String) -> Bool {
  issue.sourceLocation?.line == line && issue.sourceLocation?.fileID == #fileID
    && issue.comments.contains { $0.rawValue.contains(text) }
}

/// A publisher that sends a value without being asked: a contract break.
private struct Pushy: Publisher {
  typealias Output = String
  typealias Failure = Never
  func receive<S: Subscriber>(subscriber: S) where S.Input == String, S.Failure == Never {
    subscriber.receive(subscription: Subscriptions.empty)
    _ = subscriber.receive("x")
  }
}

/// `expectMarbles` for Swift Testing. Failing cases run inside `withKnownIssue`, whose matcher
/// checks the whole message and that it points at the calling line.
@Suite(.timeLimit(.minutes(5))) struct MarbleExpectationTests {
  let scheduler = TestScheduler()

  @Test func matchingOutput_passes() {
    let input = scheduler.hot("-a--b-|")
    #expect(scheduler.expectMarbles(input.map { $0.uppercased() }, "-A--B-|"))
    #expect(input.subscriptionLines.map { $0.rendered() } == ["(^*)"])
  }

  @Test func values_mapCharactersToValues() {
    let input = scheduler.cold("-a-b|", values: ["a": 1, "b": 2])
    #expect(scheduler.expectMarbles(input.map { $0 * 10 }, "-x-y|", values: ["x": 10, "y": 20]))
  }

  @Test func multipleHotInputs_onOneScheduler() {
    let left = scheduler.hot("-a---b---|")
    let right = scheduler.hot("---1---2-|")
    #expect(
      scheduler.expectMarbles(
        left.combineLatest(right).map { $0 + $1 },
        "---x-y-z-|",
        values: ["x": "a1", "y": "b1", "z": "b2"]
      )
    )
  }

  @Test func failureAndRetry_resubscribeTheColdInput() {
    let input = scheduler.cold("-a#", error: TestError())
    #expect(scheduler.expectMarbles(input.retry(1), "-a-a#", error: TestError()))
    #expect(input.subscriptionLines.map { $0.rendered() } == ["(^*)", "--(^*)"])
  }

  @Test func demandLine_drivesTheSubscriber() {
    let input = scheduler.hot("-a-b-c|")
    // `(^1)` takes frames 0 to 3: the second request is at frame 4.
    #expect(scheduler.expectMarbles(input, "-a---c|", demand: "(^1)1"))
    #expect(input.subscriptionLines.map { $0.rendered() } == ["(^1)1"])
    #expect(input.violations == ["sent b while demand was none"])
  }

  @Test func lateSubscription_andCancel_fromTheDemandLine() {
    let input = scheduler.hot("-a-b-c-d|")
    #expect(scheduler.expectMarbles(input, "---b-c", demand: "--(^*)!"))
    #expect(input.subscriptionLines.map { $0.rendered() } == ["--(^*)!"])
  }

  @Test func subscriberCallsComeFirstInTheirFrame() {
    let input = scheduler.hot("-(ab)|")
    #expect(scheduler.expectMarbles(input, "-(ab)|", demand: "^*"))
  }

  @Test func wrongTiming_recordsOneIssueWithAlignedLines() {
    let input = scheduler.hot("-a-b|")
    let line = #line + 2
    withKnownIssue {
      scheduler.expectMarbles(input, "-a--b|")
    } matching: {
      issue(
        $0,
        isAt: line,
        saying: """
          Marbles differ (a frame is 1 tick; frame 0 is tick 0)
            expected: -a--b|
            actual:   -a-b|
          Event 2: expected value b ("b") at frame 4, got value b ("b") at frame 3
          Inputs:
            hot "-a-b|": subscriptions "(^*)"
          """
      )
    }
  }

  /// The message that Docs/StreamTesting.md shows under "When a marble test fails".
  @Test func documentedFailureMessage_isTheOneRecorded() {
    let input = scheduler.hot("-ab----c-d----|")
    let line = #line + 2
    withKnownIssue {
      scheduler.expectMarbles(input.debounce(for: 3, scheduler: scheduler), "-----b-----d-|")
    } matching: {
      issue(
        $0,
        isAt: line,
        saying: """
          Marbles differ (a frame is 1 tick; frame 0 is tick 0)
            expected: -----b-----d-|
            actual:   -----b------d-|
          Event 2: expected value d ("d") at frame 11, got value d ("d") at frame 12
          Inputs:
            hot "-ab----c-d----|": subscriptions "(^*)"
          """
      )
    }
  }

  @Test func wrongValue_namesBothValues() {
    let input = scheduler.cold("-a|", values: ["a": 1])
    let line = #line + 2
    withKnownIssue {
      scheduler.expectMarbles(input.map { $0 + 1 }, "-a|", values: ["a": 1])
    } matching: {
      issue(
        $0,
        isAt: line,
        mentioning: "Event 1: expected value a (1) at frame 1, got value 2 (2) at frame 1"
      )
    }
  }

  @Test func missingCompletion_saysNothingMore() {
    let input = scheduler.hot("-a")
    let line = #line + 2
    withKnownIssue {
      scheduler.expectMarbles(input, "-a|")
    } matching: {
      issue($0, isAt: line, mentioning: "Event 2: expected finished | at frame 2, got nothing more")
    }
  }

  @Test func wrongError_isADifference() {
    let input = scheduler.cold("-#", error: TestError())
    let line = #line + 2
    withKnownIssue {
      scheduler.expectMarbles(
        input.mapError { _ in OtherError() },
        "-#",
        error: OtherError(code: 2)
      )
    } matching: {
      issue($0, isAt: line, mentioning: "Event 1: expected failure # (")
    }
  }

  @Test func demandLine_isShownAboveTheLines() {
    let input = scheduler.hot("-a-b|")
    let line = #line + 2
    withKnownIssue {
      scheduler.expectMarbles(input, "-a-b|", demand: "(^1)")
    } matching: {
      issue($0, isAt: line, mentioning: "  demand:   (^1)\n  expected: -a-b|\n  actual:   -a--|")
    }
  }

  /// A repeating timer keeps the scheduler busy for ever: the expectation stops after its
  /// action limit and records one issue that says why, with the marble lines cut short.
  @Test func publisherThatNeverSettles_failsOnce_insteadOfHanging() {
    let timer = scheduler.timerPublisher(every: 1).autoconnect().map { _ in "t" }
    let line = #line + 4
    let issues = LockedState<[String]>([])
    let frames = String(repeating: "t", count: 200)
    withKnownIssue {
      scheduler.expectMarbles(timer, "-t|")
    } matching: { recorded in
      issues.withLock { $0 += recorded.comments.map(\.rawValue) }
      return issue(
        recorded,
        isAt: line,
        mentioning: "The scheduler still had work after 100000 actions (a repeating timer?); "
          + "end it with a cancel `!` in the demand line"
      )
    }
    let messages = issues.withLock { $0 }
    #expect(messages.count == 1)
    let message = messages.first ?? ""
    #expect(message.contains("  expected: -t|\n"))
    #expect(message.contains("  actual:   -\(frames.dropLast())… ("))
    #expect(message.contains(" more characters)\n"))
    #expect(
      message.contains("Event 2: expected finished | at frame 2, got value t (\"t\") at frame 2")
    )
    #expect(message.count < 1_000)
  }

  @Test func publisherThatNeverSettles_passesWhenTheDemandLineCancels() {
    let timer = scheduler.timerPublisher(every: 1).autoconnect().map { _ in "t" }
    // `(^*)` takes frames 0 to 3: the cancel is at frame 4, before that frame's tick.
    #expect(scheduler.expectMarbles(timer, "-ttt", demand: "(^*)!"))
  }

  @Test func malformedExpectation_isAnIssueNotACrash() {
    let line = #line + 2
    withKnownIssue {
      scheduler.expectMarbles(scheduler.hot("-a"), "-(a")
    } matching: {
      issue(
        $0,
        isAt: line,
        saying:
          "The marble expectation does not parse: `-(a`, column 2: a group `(` that is never closed"
      )
    }
  }

  @Test func malformedInput_isReported() {
    let input = scheduler.hot("-a)")
    let line = #line + 2
    withKnownIssue {
      scheduler.expectMarbles(input, "-a")
    } matching: {
      issue(
        $0,
        isAt: line,
        saying: "A marble publisher's line does not parse: `-a)`, column 3: `)` without a `(`"
      )
    }
  }

  @Test func contractBreak_isReported() {
    let line = #line + 2
    withKnownIssue {
      scheduler.expectMarbles(Pushy(), "x", demand: "^")
    } matching: {
      issue(
        $0,
        isAt: line,
        mentioning: "The publisher broke the subscriber contract: received x while demand was none"
      )
    }
  }

  @Test func marbleFrame_appliesToTheExpectation() {
    scheduler.marbleFrame = .milliseconds(10)
    let input = scheduler.hot("-a-b|")
    #expect(
      scheduler.expectMarbles(input.delay(for: .milliseconds(20), scheduler: scheduler), "---a-b|")
    )
  }
}

private struct OtherError: Error, Equatable {
  var code = 1
}
