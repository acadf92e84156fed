import StreamCore
import Testing

@testable import SignalOperators

/// A stand-in for a multicast connection.
private final class Token {}

/// Multicast's connection slot and connection state machines, driven without threads.
@Suite(.timeLimit(.minutes(5))) struct MulticastStateTests {
  @Test func connect_makesOneConnectionUntilItIsForgotten() {
    var state = MulticastState<Token>.disconnected
    let made = Token()
    let first = state.connect { made }
    guard case .fresh(let fresh) = first else {
      Issue.record("expected a fresh connection, got \(first)")
      return
    }
    #expect(fresh === made)
    let second = state.connect { Token() }
    guard case .existing(let existing) = second else {
      Issue.record("expected the existing connection, got \(second)")
      return
    }
    #expect(existing === made)
    let stranger = state.disconnect(Token())
    #expect(stranger == nil)
    let forgotten = state.disconnect(made)
    #expect(forgotten === made)
    let again = state.connect { Token() }
    guard case .fresh(let next) = again else {
      Issue.record("expected a fresh connection, got \(again)")
      return
    }
    #expect(next !== made)
  }

  @Test func connection_attachThenCancel_handsOutTheSubscription() {
    var state = MulticastConnectionState.connecting
    let upstream = AnyCancellable {}
    let stale = state.attach(upstream)
    #expect(stale == nil)
    let cancelled = state.cancel()
    #expect(cancelled?.upstream === upstream)
    let again = state.cancel()
    #expect(again == nil)
  }

  @Test func connection_cancelledBeforeAttach_handsTheSubscriptionBack() {
    var state = MulticastConnectionState.connecting
    let cancelled = state.cancel()
    #expect(cancelled != nil)
    #expect(cancelled?.upstream == nil)
    let upstream = AnyCancellable {}
    let stale = state.attach(upstream)
    #expect(stale === upstream)
  }
}
