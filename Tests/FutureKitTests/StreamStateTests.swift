import FutureKit
import StreamPropagate
import Testing

@Suite(.timeLimit(.minutes(5))) struct StreamStateTests {
  typealias State = StreamState<Int, StreamTestError>

  @Test func data_hasValueAndNoError() {
    let state = State.data(1)
    #expect(state.value == 1)
    #expect(state.error == nil)
    #expect(!state.isCancelled)
  }

  @Test func error_hasErrorAndNoValue() {
    let state = State.error(StreamTestError(7))
    #expect(state.value == nil)
    #expect(state.error == StreamTestError(7))
    #expect(!state.isCancelled)
  }

  @Test func cancelled_hasNeitherAndIsCancelled() {
    let state = State.cancelled
    #expect(state.value == nil)
    #expect(state.error == nil)
    #expect(state.isCancelled)
  }

  @Test func description_matchesPropagate() {
    #expect(State.data(1).description == "Data: 1")
    #expect(State.error(StreamTestError(2)).description == "Error: StreamTestError(code: 2)")
    #expect(State.cancelled.description == "Cancelled.")
  }

  @Test func equatable_comparesCasesAndPayloads() {
    #expect(State.data(1) == .data(1))
    #expect(State.data(1) != .data(2))
    #expect(State.error(StreamTestError(1)) != .data(1))
    #expect(State.cancelled == .cancelled)
    #expect(Set([State.data(1), .data(1), .cancelled]).count == 2)
  }
}
