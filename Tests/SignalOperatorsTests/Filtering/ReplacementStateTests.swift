import StreamCore
import Testing

@testable import SignalOperators

/// The `replaceEmpty` / `replaceError` state machine, driven without threads or subscribers.
@Suite(.timeLimit(.minutes(5))) struct ReplacementStateTests {
  private final class Upstream: Subscription {
    func request(_ demand: Subscribers.Demand) {}
    func cancel() {}
  }

  private typealias State = ReplacementState<String, Int>

  private func active(_ trigger: State.Trigger) -> (State, Upstream) {
    var state = State.awaitingSubscription("down", 42, trigger)
    let upstream = Upstream()
    check(state.subscribe(upstream) == "down")
    return (state, upstream)
  }

  @Test func subscribe_twice_secondIsRefused() {
    var (state, _) = active(.emptyFinish)
    check(state.subscribe(Upstream()) == nil)
  }

  @Test func emptyFinish_requestedBefore_replaces() {
    var (state, upstream) = active(.emptyFinish)
    guard case .request(let target) = state.request(.max(1)) else {
      Issue.record("expected .request")
      return
    }
    #expect((target as? Upstream) === upstream)
    guard
      case .replace(let down, let value, let released) = state.receiveCompletion(isFailure: false)
    else {
      Issue.record("expected .replace")
      return
    }
    #expect(down == "down" && value == 42 && (released.upstream as? Upstream) === upstream)
    check(state.finishReplacement())
    guard case .terminal = state else {
      Issue.record("expected .terminal")
      return
    }
  }

  @Test func emptyFinish_nothingRequested_holdsUntilRequest() {
    var (state, upstream) = active(.emptyFinish)
    guard case .hold(let released) = state.receiveCompletion(isFailure: false) else {
      Issue.record("expected .hold")
      return
    }
    #expect((released.upstream as? Upstream) === upstream && released.downstream == nil)
    guard case .replace(let down, let value) = state.request(.max(1)) else {
      Issue.record("expected .replace")
      return
    }
    #expect(down == "down" && value == 42)
  }

  @Test func emptyFinish_afterValue_forwardsFinished() {
    var (state, _) = active(.emptyFinish)
    _ = state.request(.max(1))
    check(state.receiveValue() == "down")
    check(state.receiveValue() == "down")  // values pass regardless of demand
    guard case .forward(let down, let released) = state.receiveCompletion(isFailure: false) else {
      Issue.record("expected .forward")
      return
    }
    #expect(down == "down" && released.replacement == 42)
  }

  @Test func emptyFinish_failure_forwards() {
    var (state, _) = active(.emptyFinish)
    _ = state.request(.max(1))
    guard case .forward = state.receiveCompletion(isFailure: true) else {
      Issue.record("expected .forward")
      return
    }
  }

  @Test func failure_valuesHeldToDemand() {
    var (state, _) = active(.failure)
    check(state.receiveValue() == nil)
    _ = state.request(.max(1))
    check(state.receiveValue() == "down")
    check(state.receiveValue() == nil)
    state.addDemand(.max(1))
    check(state.receiveValue() == "down")
  }

  @Test func failure_withoutDemand_holdsThenReplacesOnRequest() {
    var (state, _) = active(.failure)
    guard case .hold = state.receiveCompletion(isFailure: true) else {
      Issue.record("expected .hold")
      return
    }
    check(state.receiveValue() == nil)
    guard case .replace(_, let value) = state.request(.max(1)) else {
      Issue.record("expected .replace")
      return
    }
    #expect(value == 42)
  }

  @Test func failure_finished_forwards() {
    var (state, _) = active(.failure)
    guard case .forward = state.receiveCompletion(isFailure: false) else {
      Issue.record("expected .forward")
      return
    }
    check(state.finishReplacement() == false)
  }

  @Test func cancel_whileReplacing_noFinished() {
    var (state, _) = active(.failure)
    _ = state.request(.max(1))
    _ = state.receiveCompletion(isFailure: true)
    let released = state.cancel()
    #expect(released.upstream == nil && released.downstream == nil)
    check(state.finishReplacement() == false)
  }

  @Test func cancel_active_releasesEverything() {
    var (state, upstream) = active(.emptyFinish)
    let released = state.cancel()
    #expect((released.upstream as? Upstream) === upstream && released.downstream == "down")
    #expect(released.replacement == 42)
    guard case .ignore = state.receiveCompletion(isFailure: false) else {
      Issue.record("expected .ignore")
      return
    }
    guard case .none = state.request(.max(1)) else {
      Issue.record("expected .none")
      return
    }
  }
}

/// `#expect` for a condition that calls a mutating transition, which the macro can't expand.
private func check(_ condition: Bool, sourceLocation: SourceLocation = #_sourceLocation) {
  #expect(condition, sourceLocation: sourceLocation)
}
