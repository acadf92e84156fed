import SignalOperators
import StreamCombineExt
import StreamCore
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct MaterializedEventTests {
  typealias Item = MaterializedEvent<Int, TestError>

  @Test func equality_comparesCaseAndPayload() {
    #expect(Item.value(1) == .value(1))
    #expect(Item.value(1) != .value(2))
    #expect(Item.failure(TestError()) == .failure(TestError()))
    #expect(Item.failure(TestError()) != .failure(TestError(code: 1)))
    #expect(Item.finished == .finished)
    #expect(Item.value(1) != .finished)
    #expect(Item.finished != .failure(TestError()))
  }

  @Test func description_namesTheCase() {
    #expect(Item.value(3).description == "value(3)")
    #expect(Item.failure(TestError()).description == "failure(Boom)")
    #expect(Item.finished.description == "finished")
  }

  @Test func event_isItself() {
    #expect(Item.value(5).event == .value(5))
  }
}
