import StreamCore
import StreamTesting
import Testing

/// Parsing and rendering of subscription (demand) lines.
@Suite(.timeLimit(.minutes(5))) struct SubscriptionTimelineTests {
  @Test func marks_parseToCallsAtTheirFrames() throws {
    let line = try SubscriptionTimeline(parsing: "(^1)--*--!")
    #expect(
      line.entries == [
        .init(frame: 0, action: .subscribe),
        .init(frame: 0, action: .request(.max(1))),
        .init(frame: 6, action: .request(.unlimited)),
        .init(frame: 9, action: .cancel),
      ]
    )
  }

  @Test func lateSubscription_startsAtItsCaret() throws {
    let line = try SubscriptionTimeline(parsing: "--^9")
    #expect(
      line.entries == [
        .init(frame: 2, action: .subscribe), .init(frame: 3, action: .request(.max(9))),
      ]
    )
  }

  @Test(arguments: [
    ("-1", 2, "a call before the subscription `^`"),
    ("^-!-1", 5, "a call after the cancel `!`"),
    ("^^", 2, "a second `^`"),
    ("^0", 2, "`0` is not a subscription mark (`^`, `1`…`9`, `*`, `!`)"),
    ("^a", 2, "`a` is not a subscription mark (`^`, `1`…`9`, `*`, `!`)"),
  ])
  func malformedLine_throws(marbles: String, column: Int, reason: String) {
    #expect(throws: MarbleSyntaxError(marbles: marbles, column: column, reason: reason)) {
      try SubscriptionTimeline(parsing: marbles)
    }
  }

  @Test(arguments: ["(^*)---!", "^-1-2", "--^", "(^1)(11)-!"])
  func parseThenRender_givesTheLineBack(marbles: String) throws {
    #expect(try SubscriptionTimeline(parsing: marbles).rendered() == marbles)
  }

  @Test func render_writesLargeRequestsAsQuestionMarks() {
    let line = SubscriptionTimeline(
      entries: [.init(frame: 0, action: .subscribe), .init(frame: 1, action: .request(.max(12)))]
    )
    #expect(line.rendered() == "^?")
    #expect(line.description == "^?")
  }

  @Test func entries_renderAsTheMarksThatParseBackToThem() throws {
    let line = SubscriptionTimeline(
      entries: [
        .init(frame: 0, action: .subscribe),
        .init(frame: 0, action: .request(.max(1))),
        .init(frame: 5, action: .cancel),
      ]
    )
    #expect(line.description == "(^1)-!")
    #expect(try SubscriptionTimeline(parsing: line.description) == line)
  }
}
