import Dispatch
import StreamCore
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct ConformanceKitTests {
  // MARK: StreamCore publishers

  // Only `[…].publisher` and `Record` get a 1,000,000-value publisher for SC-1.05: they are
  // StreamCore's synchronous multi-value sources (`Deferred`, ranges and `AnyPublisher` reuse
  // `Publishers.Sequence`), and each long run takes about 2 s in a debug build.

  @Test func just_passesEveryRule() {
    let report = PublisherConformance(elements: 1) { Just(1) }.run()
    report.expectAllPassed(skipping: ["SC-1.05", "SC-2.04", "SC-3.02"])
    #expect(report.outcome(of: .cancelFromReceive) == .passed)
  }

  @Test func empty_passesEveryRule() {
    PublisherConformance(elements: 0) { Empty<Int, Never>() }.run().expectAllPassed(skipping: [
      "SC-1.05", "SC-2.04", "SC-3.01", "SC-3.02",
    ])
  }

  @Test func fail_passesEveryRule() {
    let report = PublisherConformance(
      makePublisher: { Fail<Int, TestError>(error: TestError()) },
      makeFailingPublisher: { Fail<Int, TestError>(error: TestError()) }
    )
    .run()
    report.expectAllPassed(skipping: ["SC-1.05", "SC-2.03", "SC-3.01", "SC-3.02"])
    #expect(report.outcome(of: .failureExactlyOnce) == .passed)
  }

  @Test func deferred_passesEveryRule() {
    PublisherConformance(elements: 3) { Deferred { [1, 2, 3].publisher } }.run().expectAllPassed(
      skipping: ["SC-1.05", "SC-2.04"])
  }

  @Test func record_passesEveryRule() {
    let report = PublisherConformance(
      elements: 3,
      makePublisher: { Record<Int, TestError>(output: [1, 2, 3], completion: .finished) },
      makeFailingPublisher: {
        Record<Int, TestError>(output: [1, 2], completion: .failure(TestError()))
      },
      makeLongPublisher: {
        Record<Int, TestError>(output: Array(0..<1_000_000), completion: .finished)
      }
    )
    .run()
    report.expectAllPassed()
    #expect(report.skipped.isEmpty)
  }

  @Test func arrayPublisher_passesEveryRule() {
    let report = PublisherConformance(
      elements: 3,
      makePublisher: { [1, 2, 3].publisher },
      makeLongPublisher: { Array(0..<1_000_000).publisher }
    )
    .run()
    report.expectAllPassed(skipping: ["SC-2.04"])
    #expect(report.outcome(of: .requestFromReceiveDoesNotRecurse) == .passed)
  }

  @Test func rangePublisher_passesEveryRule() {
    PublisherConformance(elements: 500) { (0..<500).publisher }.run().expectAllPassed(skipping: [
      "SC-1.05", "SC-2.04",
    ])
  }

  @Test func emptyArrayPublisher_passesEveryRule() {
    PublisherConformance(elements: 0) { [Int]().publisher }.run().expectAllPassed(skipping: [
      "SC-1.05", "SC-2.04", "SC-3.01", "SC-3.02",
    ])
  }

  @Test func resultPublisher_passesEveryRule() {
    let report = PublisherConformance(
      elements: 1,
      makePublisher: { Result<Int, TestError>.Publisher(1) },
      makeFailingPublisher: { Result<Int, TestError>.Publisher(TestError()) }
    )
    .run()
    report.expectAllPassed(skipping: ["SC-1.05", "SC-3.02"])
    #expect(report.outcome(of: .failureExactlyOnce) == .passed)
  }

  @Test func optionalPublisher_passesEveryRule() {
    PublisherConformance(elements: 1) { Optional(1).publisher }.run().expectAllPassed(skipping: [
      "SC-1.05", "SC-2.04", "SC-3.02",
    ])
    PublisherConformance(elements: 0) { Int?.none.publisher }.run().expectAllPassed(skipping: [
      "SC-1.05", "SC-2.04", "SC-3.01", "SC-3.02",
    ])
  }

  @Test func anyPublisher_passesEveryRule() {
    PublisherConformance(
      elements: 3,
      makePublisher: {
        Publishers.Sequence<[Int], TestError>(sequence: [1, 2, 3]).eraseToAnyPublisher()
      },
      makeFailingPublisher: { Fail<Int, TestError>(error: TestError()).eraseToAnyPublisher() }
    )
    .run()
    .expectAllPassed(skipping: ["SC-1.05"])
  }

  @Test func passthroughSubject_fedFromAnotherThread_passesEveryRule() {
    let report = PublisherConformance(
      timeout: .seconds(5),
      makePublisher: { KitFedSubject(PassthroughSubject<Int, TestError>()) },
      makeFailingPublisher: {
        KitFedSubject(PassthroughSubject<Int, TestError>(), failure: TestError())
      }
    )
    .run()
    report.expectAllPassed(skipping: ["SC-1.05", "SC-2.03"])
    #expect(report.outcome(of: .concurrentRequestAndCancel) == .passed)
  }

  @Test func currentValueSubject_fedFromAnotherThread_passesEveryRule() {
    PublisherConformance(
      timeout: .seconds(5),
      makePublisher: { KitFedSubject(CurrentValueSubject<Int, TestError>(0)) },
      makeFailingPublisher: {
        KitFedSubject(CurrentValueSubject<Int, TestError>(0), failure: TestError())
      }
    )
    .run()
    .expectAllPassed(skipping: ["SC-1.05", "SC-2.03"])
  }

  // MARK: Asynchronous publishers

  @Test func asynchronousPublisher_passesEveryRule() {
    let report = PublisherConformance(
      elements: 300,
      timeout: .seconds(5),
      makePublisher: { KitAsyncCounter(count: 300) },
      makeFailingPublisher: { KitAsyncCounter(count: 2, failure: TestError()) }
    )
    .run()
    report.expectAllPassed(skipping: ["SC-1.05"])
    #expect(report.outcome(of: .finiteElementsThenFinished) == .passed)
  }

  @Test func asynchronousPublisher_longRunIsSkippedBecauseItCannotNest() {
    let report = PublisherConformance(
      timeout: .seconds(5),
      makePublisher: { KitAsyncCounter(count: 1) },
      makeLongPublisher: { KitAsyncCounter(count: 1_000_000) }
    )
    .run([.requestFromReceiveDoesNotRecurse])
    guard case .skipped(let reason) = report.outcome(of: .requestFromReceiveDoesNotRecurse) else {
      Issue.record("expected a skip: \(report)")
      return
    }
    #expect(reason.contains("delivers on other threads"))
  }

  // MARK: Broken publishers

  @Test func ignoringDemand_failsTheDemandRules() {
    let report = brokenReport(.ignoresDemand)
    expectFailures(
      report,
      [
        .demandOneAtATime, .demandFromReceive, .demandUpFront, .subscriptionFirstAndOnce,
        .cancelFromOutside, .cancelIsIdempotent, .releasedAfterCancel, .independentSubscriptions,
      ],
      mentioning: "came with no outstanding demand",
      // Whether the concurrent requests have granted enough demand by the time the publisher
      // sends everything depends on thread timing.
      racing: [.concurrentRequests, .concurrentRequestAndCancel]
    )
    let message = failureMessage(report, .demandOneAtATime)
    #expect(
      message.hasPrefix("value #2 (1) came with no outstanding demand (max(1) granted in total); ")
    )
    #expect(message.hasSuffix("; and 996 more"))
  }

  @Test func sendingAfterCancel_failsTheCancellationRules() {
    let report = brokenReport(.sendsAfterCancel)
    expectFailures(
      report,
      [.cancelFromReceive, .requestAfterCancel, .concurrentRequestAndCancel],
      mentioning: "after"
    )
    #expect(failureMessage(report, .cancelFromReceive).contains("value #2 (1) came after cancel()"))
    #expect(
      failureMessage(report, .concurrentRequestAndCancel)
        .contains("after every cancel() had returned")
    )
  }

  @Test func completingTwice_failsTheCompletionRules() {
    let report = brokenReport(.completesTwice)
    expectFailures(
      report,
      [
        .demandUnlimited, .atMostOneCompletion, .finiteElementsThenFinished,
        .releasedAfterCompletion, .independentSubscriptions,
      ],
      mentioning: "completion #2 (finished) came after 1000 values, then .finished"
    )
  }

  @Test func keepingSubscribers_failsTheReleaseRules() {
    let report = brokenReport(.keepsSubscribers, timeout: .seconds(2))
    expectFailures(
      report,
      [.releasedAfterCancel, .releasedAfterCompletion],
      mentioning: "the subscriber was still alive"
    )
  }

  @Test func recursingOnRequest_failsTheRecursionRuleWithoutOverflowing() {
    let report = PublisherConformance(
      elements: 1_000,
      makePublisher: { KitBrokenCounter(count: 1_000, flaw: .recurses) },
      makeLongPublisher: { KitBrokenCounter(count: 1_000_000, flaw: .recurses) }
    )
    .run()
    expectFailures(
      report,
      [.requestFromReceiveDoesNotRecurse],
      mentioning: "receive(_:) was nested 33 calls deep on one thread",
      // It also delivers on every requesting thread at once, which these rules catch when the
      // threads happen to overlap.
      racing: [.concurrentRequests, .concurrentRequestAndCancel]
    )
  }

  // MARK: Report

  @Test func report_describesEachRule() {
    let report = brokenReport(.sendsAfterCancel, rules: [.demandOneAtATime, .cancelFromReceive])
    #expect(report.results.map(\.rule) == [.demandOneAtATime, .cancelFromReceive])
    #expect(
      report.description
        == """
        StreamTestingTests.KitBrokenCounter: 1 passed, 1 failed, 0 skipped
          SC-1.01 passed
          SC-3.01 FAILED: value #2 (1) came after cancel(); value #3 (2) came after cancel()
        """
    )
  }

  @Test func missingInputs_skipTheRulesThatNeedThem() {
    let report = PublisherConformance { [1, 2, 3].publisher }.run()
    let skipped = report.skipped.map(\.rule)
    #expect(
      skipped == [
        .requestFromReceiveDoesNotRecurse, .atMostOneCompletion, .finiteElementsThenFinished,
        .failureExactlyOnce, .releasedAfterCompletion,
      ]
    )
    #expect(report.outcome(of: .failureExactlyOnce) == .skipped("needs makeFailingPublisher"))
  }

  @Test func sharedSubscriptions_skipTheIndependenceRule() {
    let report = PublisherConformance(elements: 1, independentSubscriptions: false) { Just(1) }
      .run([.independentSubscriptions])
    #expect(report.skipped.map(\.rule) == [.independentSubscriptions])
  }

  @Test func expectAllPassed_recordsOneIssuePerFailedRule() {
    let report = brokenReport(.sendsAfterCancel, rules: [.cancelFromReceive, .requestAfterCancel])
    withKnownIssue {
      report.expectAllPassed()
    } matching: { issue in
      issue.comments.contains {
        $0.rawValue.hasPrefix("StreamTestingTests.KitBrokenCounter broke SC-3.0")
      }
    }
  }

  @Test func expectAllPassed_recordsARuleSkippedWithoutBeingListed() {
    let report = PublisherConformance(elements: 1) { Just(1) }.run([.failureExactlyOnce])
    withKnownIssue {
      report.expectAllPassed()
    } matching: { issue in
      issue.comments.contains {
        $0.rawValue.contains("skipped SC-2.04")
          && $0.rawValue.contains("needs makeFailingPublisher")
          && $0.rawValue.contains("list \"SC-2.04\" in skipping:")
      }
    }
  }

  @Test func expectAllPassed_isQuietForAListedSkip() {
    PublisherConformance(elements: 1) { Just(1) }.run([.failureExactlyOnce])
      .expectAllPassed(skipping: ["SC-2.04"])
  }

  @Test func expectAllPassed_recordsAListedRuleThatRan() {
    let report = PublisherConformance(elements: 1) { Just(1) }.run([.demandOneAtATime])
    withKnownIssue {
      report.expectAllPassed(skipping: ["SC-1.01"])
    } matching: { issue in
      issue.comments.contains {
        $0.rawValue.contains("was expected to skip SC-1.01, but the rule ran")
      }
    }
  }

  @Test func expectAllPassed_recordsAListedIdThatIsNoRuleOfTheRun() {
    let report = PublisherConformance(elements: 1) { Just(1) }.run([.demandOneAtATime])
    withKnownIssue {
      report.expectAllPassed(skipping: ["SC-9.99"])
    } matching: { issue in
      issue.comments.contains { $0.rawValue.contains("\"SC-9.99\", which is no rule of this run") }
    }
  }

  @Test func privatePublisherType_isNamedWithoutItsRuntimeAddress() {
    let report = PublisherConformance { PrivateCounter() }.run([.demandOneAtATime])
    #expect(report.publisher == "StreamTestingTests.PrivateCounter")
  }

  @Test func rules_haveUniqueIdentifiers() {
    let ids = ConformanceRule.all.map(\.id)
    #expect(Set(ids).count == ids.count)
    #expect(ConformanceRule.named("SC-3.01") == .cancelFromReceive)
    #expect(ConformanceRule.named("SC-9.99") == nil)
  }

  // MARK: Helpers

  /// The broken counter delivers from a queue; on a loaded machine that queue may be slow to
  /// run, so the kit waits 5 s (as for the other publishers fed from another thread).
  private func brokenReport(
    _ flaw: KitBrokenCounter.Flaw,
    timeout: Duration = .seconds(5),
    rules: [ConformanceRule] = ConformanceRule.all
  ) -> ConformanceReport {
    PublisherConformance(elements: 1_000, timeout: timeout) {
      KitBrokenCounter(count: 1_000, flaw: flaw)
    }
    .run(rules)
  }

  private func failureMessage(_ report: ConformanceReport, _ rule: ConformanceRule) -> String {
    guard case .failed(let message) = report.outcome(of: rule) else { return "" }
    return message
  }

  /// Expects exactly `rules` to fail (apart from `racing`), each with a message containing
  /// `text`.
  private func expectFailures(
    _ report: ConformanceReport,
    _ rules: Set<ConformanceRule>,
    mentioning text: String,
    racing: Set<ConformanceRule> = [],
    sourceLocation: SourceLocation = #_sourceLocation
  ) {
    let failed = Set(report.failures.map(\.rule)).subtracting(racing)
    #expect(failed == rules, "\(report)", sourceLocation: sourceLocation)
    for rule in rules {
      let message = failureMessage(report, rule)
      #expect(message.contains(text), "\(rule.id): \(message)", sourceLocation: sourceLocation)
    }
  }
}

/// A publisher whose type is private, so the runtime names it with an address.
private struct PrivateCounter: Publisher {
  typealias Output = Int
  typealias Failure = Never

  func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == Never {
    [1, 2, 3].publisher.receive(subscriber: subscriber)
  }
}
