import StreamCore
import StreamTesting
import Testing

/// Hot and cold marble publishers: what they send, when, and what they log.
@Suite(.timeLimit(.minutes(5))) struct MarblePublisherTests {
  let scheduler = TestScheduler()

  private func lines(_ input: MarblePublisher<String, Never>) -> [String] {
    input.subscriptionLines.map { $0.rendered() }
  }

  // Issue 15: every subscription has a description and a mirror.
  @Test func subscription_describesItself_andMirrorsWhatItLogs() throws {
    let input = scheduler.cold("-a|")
    let recorder = RecordingSubscriber<String, Never>(initialDemand: nil)
    input.subscribe(recorder)
    let subscription = try #require(recorder.subscription)
    #expect(String(describing: subscription) == "MarblePublisher")
    let playground = subscription as? any CustomPlaygroundDisplayConvertible
    #expect(playground?.playgroundDescription as? String == "MarblePublisher")
    let children = Array(Mirror(reflecting: subscription).children)
    #expect(children.map(\.label) == ["subscription", "index"])
    #expect(children[1].value as? Int == 0)
    subscription.cancel()
  }

  @Test func hot_sendsOnItsOwnClock_soALateSubscriberMissesEarlierValues() {
    let input = scheduler.hot("-a-b-c|")
    scheduler.advance(by: 2)
    let recorder = MarbleRecorder<String, Never>(scheduler: scheduler)
    input.subscribe(recorder)
    scheduler.run()
    #expect(recorder.records.map(\.time) == [VirtualTime(3), VirtualTime(5), VirtualTime(6)])
    #expect(recorder.rendered() == "-b-c|")  // the recorder's frame 0 is tick 2
    #expect(lines(input) == ["--(^*)"])
  }

  @Test func hot_caretIsTheInstantItWasMade() {
    let input = scheduler.hot("a-^-b|")
    let recorder = MarbleRecorder<String, Never>(scheduler: scheduler)
    input.subscribe(recorder)
    scheduler.run()
    #expect(recorder.rendered() == "--b|")  // `a` was sent before anyone could subscribe
    #expect(input.timeline.entries.map(\.frame) == [-2, 2, 3])
  }

  @Test func cold_startsTheLineAgainForEachSubscriber() {
    let input = scheduler.cold("-a|")
    let first = MarbleRecorder<String, Never>(scheduler: scheduler)
    input.subscribe(first)
    scheduler.advance(by: 3)
    let second = MarbleRecorder<String, Never>(scheduler: scheduler)
    input.subscribe(second)
    scheduler.run()
    #expect(first.records.map(\.time) == [VirtualTime(1), VirtualTime(2)])
    #expect(second.records.map(\.time) == [VirtualTime(4), VirtualTime(5)])
    #expect(lines(input) == ["(^*)", "---(^*)"])
  }

  @Test func log_recordsRequestsAndCancelsAtTheirFrames() {
    let input = scheduler.hot("-a-b-c-d|")
    let recorder = MarbleRecorder<String, Never>(scheduler: scheduler, initialDemand: nil)
    input.subscribe(recorder)
    scheduler.advance(by: 2)
    recorder.request(.max(2))
    scheduler.advance(by: 3)
    recorder.cancel()
    scheduler.run()
    #expect(lines(input) == ["^-2--!"])
    #expect(recorder.rendered() == "---b-c")
    #expect(input.violations == ["sent a while demand was none"])
  }

  @Test func valueWithoutDemand_isNotDelivered_andIsAViolation() {
    let input = scheduler.hot("-a-b|")
    let recorder = MarbleRecorder<String, Never>(scheduler: scheduler, initialDemand: .max(1))
    input.subscribe(recorder)
    scheduler.run()
    #expect(recorder.rendered() == "-a--|")
    #expect(input.violations == ["sent b while demand was none"])
  }

  @Test func values_andError_areLookedUp() {
    let input = scheduler.cold("-a-#", values: ["a": 1], error: TestError())
    let recorder = MarbleRecorder<Int, TestError>(scheduler: scheduler)
    input.subscribe(recorder)
    scheduler.run()
    #expect(
      recorder.timeline.entries.map(\.event) == [.value(1), .completion(.failure(TestError()))]
    )
    #expect(recorder.timeline.entries.map(\.frame) == [1, 3])
  }

  @Test func marbleFrame_scalesTheTimeline() {
    scheduler.marbleFrame = 10
    let input = scheduler.hot("-a-|", values: ["a": 5])
    let recorder = MarbleRecorder<Int, Never>(scheduler: scheduler)
    input.subscribe(recorder)
    scheduler.run()
    #expect(recorder.records.map(\.time) == [VirtualTime(10), VirtualTime(30)])
    #expect(recorder.rendered(values: ["a": 5]) == "-a-|")
    #expect(input.frame == 10)
  }

  @Test func malformedLine_sendsNothingAndKeepsTheError() {
    let input = scheduler.hot("-a-(b")
    #expect(input.syntaxError?.reason == "a group `(` that is never closed")
    #expect(input.timeline.entries.isEmpty)
    #expect(scheduler.pendingActionCount == 0)
  }

  @Test func cold_withACaret_isASyntaxError() {
    let input = scheduler.cold("-^a")
    #expect(
      input.syntaxError
        == MarbleSyntaxError(
          marbles: "-^a",
          column: 2,
          reason: "a cold publisher has no subscription point `^`"
        )
    )
  }

  @Test func publisher_isReleasedOnceItsTimelineHasRun() {
    weak var weakInput: MarblePublisher<String, Never>?
    do {
      let input = scheduler.hot("-a|")
      weakInput = input
      let recorder = MarbleRecorder<String, Never>(scheduler: scheduler)
      input.subscribe(recorder)
      scheduler.run()
    }
    #expect(weakInput == nil)
  }

  @Test func keepsItsLine_itsKind_andItsClock() {
    scheduler.advance(by: 4)
    let hot = scheduler.hot("-a|")
    let cold = scheduler.cold("--b|")
    #expect(hot.isHot)
    #expect(!cold.isHot)
    #expect(hot.marbles == "-a|")
    #expect(cold.marbles == "--b|")
    #expect(hot.origin == VirtualTime(4))
    #expect(hot.frame == scheduler.marbleFrame)
  }
}
