import StreamCore
import Testing

@testable import SignalOperators

/// Whether `step` is `.connect`.
private func connects(_ step: AutoconnectState.Step?) -> Bool {
  if case .connect? = step { return true }
  return false
}

/// The connection `step` disconnects, if it is `.disconnect`.
private func disconnected(_ step: AutoconnectState.Step?) -> AnyCancellable? {
  guard case .disconnect(let connection)? = step else { return nil }
  return connection as? AnyCancellable
}

/// Autoconnect's state machine, driven without threads.
@Suite(.timeLimit(.minutes(5))) struct AutoconnectStateTests {
  @Test func firstSubscriber_connects_laterOnesOnlyCount() {
    var state = AutoconnectState.disconnected
    let first = state.subscribe()
    #expect(connects(first))
    let second = state.subscribe()
    #expect(second == nil)
    #expect(state.subscribers == 2)
    let connection = AnyCancellable {}
    let settled = state.settle(.connected(connection))
    #expect(settled == nil)
    let third = state.subscribe()
    #expect(third == nil)
    #expect(state.subscribers == 3)
  }

  @Test func lastSubscriberLeaving_disconnects() {
    var state = AutoconnectState.disconnected
    _ = state.subscribe()
    _ = state.subscribe()
    let connection = AnyCancellable {}
    _ = state.settle(.connected(connection))
    let first = state.release()
    #expect(first == nil)
    let last = state.release()
    #expect(disconnected(last) === connection)
    let settled = state.settle(.disconnected)
    #expect(settled == nil)
    #expect(state.subscribers == 0)
    let again = state.subscribe()
    #expect(connects(again))
  }

  @Test func everyoneLeftWhileConnecting_disconnectsTheNewConnection() {
    var state = AutoconnectState.disconnected
    _ = state.subscribe()
    let left = state.release()
    #expect(left == nil)  // the connecting thread settles it
    let connection = AnyCancellable {}
    let settled = state.settle(.connected(connection))
    #expect(disconnected(settled) === connection)
    let done = state.settle(.disconnected)
    #expect(done == nil)
  }

  @Test func subscriberArrivingWhileDisconnecting_connectsAgain() {
    var state = AutoconnectState.disconnected
    _ = state.subscribe()
    _ = state.settle(.connected(AnyCancellable {}))
    _ = state.release()
    let arrived = state.subscribe()
    #expect(arrived == nil)  // the disconnecting thread settles it
    let settled = state.settle(.disconnected)
    #expect(connects(settled))
    #expect(state.subscribers == 1)
  }
}
