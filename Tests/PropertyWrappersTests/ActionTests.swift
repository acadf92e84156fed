import PropertyWrappers
import StreamShuttle
import Testing

@Suite(.timeLimit(.minutes(5))) struct ActionTests {
  @Test func typedAction_takesAnOptional() {
    var seen: [String?] = []
    let action: TypedAction<String> = { seen.append($0) }
    action("a")
    action(nil)
    #expect(seen == ["a", nil])
  }

  @Test func typed2DAction_takesTwoOptionals() {
    var seen: [String] = []
    let action: Typed2DAction<Int, String> = { seen.append("\($0 ?? -1) \($1 ?? "-")") }
    action(1, nil)
    action(nil, "x")
    #expect(seen == ["1 -", "-1 x"])
  }

  @Test func multiAction_isOptionalAndVariadic() {
    var seen: [[Int?]] = []
    var action: MultiAction<Int> = nil
    action?(1)
    #expect(seen.isEmpty)
    action = { seen.append($0) }
    action?(1, nil, 3)
    #expect(seen == [[1, nil, 3]])
  }

  @Test func action_runs() {
    var count = 0
    let action: Action = { count += 1 }
    action()
    #expect(count == 1)
  }
}
