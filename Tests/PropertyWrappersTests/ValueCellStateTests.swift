import StreamCore
import Testing

@testable import PropertyWrappers

private typealias State = ValueCellState<Int>

/// What a drain run on `state` delivers after `first`, and the settled values it hands back.
private func drained(
  _ state: inout State,
  after first: Int
) -> (values: [Int], released: [Int]) {
  var values: [Int] = []
  var released: [Int] = []
  var delivered: Int? = first
  while true {
    let next = state.nextDelivery(settling: &delivered)
    if let old = delivered.take() { released.append(old) }
    guard let next else { return (values, released) }
    values.append(next.value)
    delivered = next.value
  }
}

/// The value a `.deliver` admission sends first, or `nil` for another admission.
private func delivery(_ admission: State.Admission) -> Int? {
  guard case .deliver(let delivery, _) = admission else { return nil }
  return delivery.value
}

/// ValueCell's state machine, driven without threads.
@Suite(.timeLimit(.minutes(5))) struct ValueCellStateTests {
  @Test func admit_whenIdle_claimsTheDrainAndHandsOutTheReplacedValue() {
    var state = State(0)
    let admission = state.admit(1)
    guard case .deliver(let first, let released) = admission else {
      Issue.record("expected to deliver, got \(admission)")
      return
    }
    #expect(first.value == 1)
    #expect(released == 0)
    #expect(state.latest == 1)
    #expect(state.settled == 0)
    #expect(state.drain.isClaimed)
    let run = drained(&state, after: 1)
    #expect(run.values.isEmpty)
    #expect(run.released == [0])
    #expect(state.settled == 1)
    #expect(!state.drain.isClaimed)
  }

  @Test func admit_whileDelivering_queuesInOrder() {
    var state = State(0)
    let first = state.admit(1)
    #expect(delivery(first) == 1)
    for value in 2...4 {
      let admission = state.admit(value)
      guard case .queued(let released) = admission else {
        Issue.record("expected to queue, got \(admission)")
        return
      }
      #expect(released == value - 1)
    }
    #expect(state.latest == 4)
    #expect(state.settled == 0)
    let run = drained(&state, after: 1)
    #expect(run.values == [2, 3, 4])
    #expect(run.released == [0, 1, 2, 3])
    #expect(state.settled == 4)
    #expect(!state.drain.isClaimed)
    let idle = state.admit(5)
    #expect(delivery(idle) == 5)
  }

  @Test func admitIfVersion_isStaleAfterAnotherAdmission() {
    var state = State(0)
    let snapshot = state.snapshot
    #expect(snapshot.value == 0)
    let admitted = state.admit(1)
    #expect(delivery(admitted) == 1)
    let stale = state.admit(2, ifVersion: snapshot.version)
    guard case .stale = stale else {
      Issue.record("expected a stale admission, got \(stale)")
      return
    }
    #expect(state.latest == 1)
    let current = state.admit(2, ifVersion: state.snapshot.version)
    guard case .queued(let released) = current else {
      Issue.record("expected to queue, got \(current)")
      return
    }
    #expect(released == 1)
  }
}
