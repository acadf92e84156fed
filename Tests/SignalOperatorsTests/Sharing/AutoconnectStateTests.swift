import StreamCore
import Testing

@testable import SignalOperators

/// The number of subscribers `state` counts.
private func subscribers(_ state: AutoconnectState) -> Int {
  guard case .connected(_, let count) = state else { return 0 }
  return count
}

/// The connection `state` records, as an `AnyCancellable`.
private func connection(_ state: AutoconnectState) -> AnyCancellable? {
  guard case .connected(let connection, _) = state else { return nil }
  return connection as? AnyCancellable
}

/// Autoconnect's state machine, driven without threads; it is Combine's (see `AutoconnectState`).
@Suite(.timeLimit(.minutes(5))) struct AutoconnectStateTests {
  @Test func firstSubscriber_connects_laterOnesOnlyCount() {
    var state = AutoconnectState.disconnected
    let connects1 = state.subscribe()
    #expect(connects1)
    let made = AnyCancellable {}
    let replaced = state.connected(made)
    #expect(replaced == nil)
    let connects2 = state.subscribe()
    #expect(!connects2)
    let connects3 = state.subscribe()
    #expect(!connects3)
    #expect(subscribers(state) == 3)
    #expect(connection(state) === made)
  }

  @Test func subscriberBeforeConnectReturned_connectsToo_andTheLastRecordedCountsOne() {
    var state = AutoconnectState.disconnected
    let connects4 = state.subscribe()
    #expect(connects4)
    let connects5 = state.subscribe()
    #expect(connects5)  // `connect()` has not returned yet
    let second = AnyCancellable {}
    _ = state.connected(second)
    let first = AnyCancellable {}
    let replaced = state.connected(first)
    #expect((replaced as? AnyCancellable) === second)
    #expect(subscribers(state) == 1)
    #expect(connection(state) === first)
  }

  @Test func lastSubscriberLeaving_disconnects_andTheNextConnectsAgain() {
    var state = AutoconnectState.disconnected
    _ = state.subscribe()
    let made = AnyCancellable {}
    _ = state.connected(made)
    _ = state.subscribe()
    let first = state.release()
    #expect(first == nil)
    let last = state.release()
    #expect((last as? AnyCancellable) === made)
    #expect(subscribers(state) == 0)
    let connects6 = state.subscribe()
    #expect(connects6)
  }

  @Test func releaseWhileDisconnected_doesNothing() {
    var state = AutoconnectState.disconnected
    _ = state.subscribe()
    let released = state.release()  // before `connect()` returned
    #expect(released == nil)
    #expect(subscribers(state) == 0)
  }
}
