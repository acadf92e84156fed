import StreamCore
import StreamTesting
import Testing

/// Parsing and rendering of value lines.
@Suite(.timeLimit(.minutes(5))) struct MarbleTimelineTests {
  private typealias Line = MarbleTimeline<String, TestError>

  private func frames(_ line: Line) -> [Int] { line.entries.map(\.frame) }

  @Test func dashesAndValues_takeOneFrameEach() throws {
    let line = try Line(parsing: "-a--b|")
    #expect(frames(line) == [1, 4, 5])
    #expect(
      line.entries.map(\.event) == [.value("a"), .value("b"), .completion(.finished)]
    )
    #expect(!line.hasSubscriptionPoint)
  }

  @Test func spaces_areIgnored() throws {
    let line = try Line(parsing: "  - a - |")
    #expect(frames(line) == [1, 3])
  }

  @Test func group_putsItsEventsInTheFrameOfItsParenthesis_andTakesOneFramePerCharacter() throws {
    let line = try Line(parsing: "-(ab)-c")
    #expect(frames(line) == [1, 1, 6])
    #expect(line.entries.map(\.event) == [.value("a"), .value("b"), .value("c")])
  }

  @Test func valuesDictionary_isUsedBeforeTheCharacter() throws {
    let line = try MarbleTimeline<Int, Never>(parsing: "a-b", values: ["a": 1, "b": 20])
    #expect(line.entries.map(\.event) == [.value(1), .value(20)])
  }

  @Test func characterOutput_standsForItself() throws {
    let line = try MarbleTimeline<Character, Never>(parsing: "xy")
    #expect(line.entries.map(\.event) == [.value("x"), .value("y")])
  }

  @Test func hash_failsWithTheGivenError() throws {
    let line = try Line(parsing: "-a#", error: TestError())
    #expect(line.entries.last?.event == .completion(.failure(TestError())))
    #expect(frames(line) == [1, 2])
  }

  @Test func caret_isFrameZero_andEarlierEventsAreNegative() throws {
    let line = try Line(parsing: "a-^-b|")
    #expect(line.hasSubscriptionPoint)
    #expect(frames(line) == [-2, 2, 3])
  }

  @Test(arguments: [
    ("-a-(b", 4, "a group `(` that is never closed"),
    ("-a)", 3, "`)` without a `(`"),
    ("((a))", 2, "a group inside a group"),
    ("-()", 2, "an empty group `()`"),
    ("(a-b)", 3, "`-` inside a group"),
    ("^-^", 3, "a second subscription point `^`"),
    ("-|a", 3, "an event after the completion"),
    ("-#", 2, "`#` needs an error (pass `error:`)"),
    ("-a-!", 4, "`!` belongs in a subscription line"),
  ])
  func malformedLine_throwsWithColumnAndReason(marbles: String, column: Int, reason: String) {
    #expect(throws: MarbleSyntaxError(marbles: marbles, column: column, reason: reason)) {
      try MarbleTimeline<String, Never>(parsing: marbles)
    }
  }

  @Test func unknownCharacterForAnIntOutput_throws() {
    #expect(throws: MarbleSyntaxError.self) {
      try MarbleTimeline<Int, Never>(parsing: "-a-z", values: ["a": 1])
    }
  }

  @Test func syntaxError_describesLineColumnAndReason() {
    let error = MarbleSyntaxError(marbles: "-a-(b", column: 4, reason: "a group")
    #expect(error.description == "`-a-(b`, column 4: a group")
  }

  @Test(arguments: ["-a--b|", "(ab)-c-#", "---a", "a", "-(b|)", ""])
  func parseThenRender_givesTheLineBack(marbles: String) throws {
    let line = try Line(parsing: marbles, error: TestError())
    #expect(line.rendered() == marbles)
  }

  @Test func render_writesValuesWithTheirKeys_orThemselves_orQuestionMarks() {
    let line = MarbleTimeline<Int, Never>(
      entries: [
        .init(frame: 0, event: .value(10)),
        .init(frame: 1, event: .value(7)),
        .init(frame: 2, event: .value(42)),
        .init(frame: 3, event: .completion(.finished)),
      ]
    )
    #expect(line.rendered(values: ["t": 10]) == "t7?|")
  }

  @Test func render_leavesOutNegativeFrames() throws {
    let line = try Line(parsing: "a^-b")
    #expect(line.rendered() == "--b")
  }

  @Test func render_eventInsideTheSpanOfAGroup_followsTheGroup() {
    let line = MarbleTimeline<String, Never>(
      entries: [
        .init(frame: 0, event: .value("a")),
        .init(frame: 0, event: .value("b")),
        .init(frame: 2, event: .value("c")),
      ]
    )
    #expect(line.rendered() == "(ab)c")
  }

  @Test func renderSymbol_writesEachValueWithTheGivenCharacter_andGroupsAnInstant() {
    let line = MarbleTimeline<Int, TestError>(
      entries: [
        .init(frame: 1, event: .value(1)),
        .init(frame: 3, event: .value(2)),
        .init(frame: 3, event: .completion(.failure(TestError()))),
      ]
    )
    #expect(line.rendered { $0 == 1 ? "x" : "y" } == "-x-(y#)")
  }
}
