import StreamCore
import Testing

@testable import SignalOperators

/// The `prefix(untilOutputFrom:)` and `drop(untilOutputFrom:)` state machines, driven without
/// threads or subscribers.
@Suite(.timeLimit(.minutes(5))) struct UntilOutputStateTests {
  private final class Link: Subscription {
    func request(_ demand: Subscribers.Demand) {}
    func cancel() {}
  }

  private typealias Prefix = PrefixUntilOutputState<String>
  private typealias Drop = DropUntilOutputState<String>

  @Test func prefix_triggerWithoutDelivery_finishesAtOnce() {
    var state = Prefix.awaitingUpstream(downstream: "down", other: nil)
    let other = Link()
    let upstream = Link()
    check(state.subscribeOther(other))
    guard case .start("down") = state.subscribeUpstream(upstream) else {
      Issue.record("expected .start")
      return
    }
    check(state.endDelivery() == nil)
    guard case .finish("down", let released) = state.trigger() else {
      Issue.record("expected .finish")
      return
    }
    #expect((released.upstream as? Link) === upstream && (released.other as? Link) === other)
    check(state.startDelivery() == nil)
    guard case .ignore = state.trigger() else {
      Issue.record("expected .ignore")
      return
    }
  }

  @Test func prefix_triggerDuringNestedDeliveries_finishesWhenTheLastReturns() {
    var state = Prefix.awaitingUpstream(downstream: "down", other: nil)
    _ = state.subscribeUpstream(Link())
    _ = state.endDelivery()
    check(state.startDelivery() == "down")
    check(state.startDelivery() == "down")  // nested: the downstream requested inside
    guard case .cancel(let released) = state.trigger() else {
      Issue.record("expected .cancel")
      return
    }
    #expect(released.upstream != nil && released.downstream == nil)
    check(state.startDelivery() == nil)
    check(state.upstreamCompleted() == nil)
    check(state.endDelivery() == nil)
    check(state.endDelivery() == "down")
    check(state.endDelivery() == nil)
  }

  @Test func prefix_cancelWhileFinishing_sendsNoFinished() {
    var state = Prefix.awaitingUpstream(downstream: "down", other: nil)
    _ = state.subscribeUpstream(Link())
    _ = state.trigger()  // the subscription's delivery is still under way
    check(state.cancel().downstream == "down")
    check(state.endDelivery() == nil)
  }

  @Test func prefix_triggerBeforeUpstream_finishesWhenItSubscribes() {
    var state = Prefix.awaitingUpstream(downstream: "down", other: nil)
    check(state.subscribeOther(Link()))
    guard case .cancel(let released) = state.trigger() else {
      Issue.record("expected .cancel")
      return
    }
    #expect(released.other != nil && released.upstream == nil)
    guard case .finishAtOnce("down") = state.subscribeUpstream(Link()) else {
      Issue.record("expected .finishAtOnce")
      return
    }
    guard case .reject = state.subscribeUpstream(Link()) else {
      Issue.record("expected .reject")
      return
    }
  }

  @Test func prefix_secondOtherSubscription_isRejected() {
    var state = Prefix.awaitingUpstream(downstream: "down", other: nil)
    check(state.subscribeOther(Link()))
    check(!state.subscribeOther(Link()))
    check(state.otherCompleted() != nil)
    check(state.otherCompleted() == nil)
  }

  @Test func drop_upstreamSubscription_isTheRequestsTargetOnceItArrives() {
    // The demand requested before it is counted by the subscription (`dropDemand`).
    var state = Drop.dropping(.init(downstream: "down"))
    check(state.upstreamSubscription == nil)
    let upstream = Link()
    check(state.subscribeUpstream(upstream))
    check((state.upstreamSubscription as? Link) === upstream)
    check(!state.subscribeUpstream(Link()))
  }

  @Test func drop_valuesDroppedUntilTriggered() {
    var state = Drop.dropping(.init(downstream: "down"))
    let other = Link()
    check(state.subscribeOther(other))
    _ = state.subscribeUpstream(Link())
    guard case .drop = state.receiveValue() else {
      Issue.record("expected .drop")
      return
    }
    check((state.trigger() as? Link) === other)
    guard case .deliver("down") = state.receiveValue() else {
      Issue.record("expected .deliver")
      return
    }
    check(state.otherCompleted() == nil)  // after the trigger the other's end changes nothing
    check(state.end()?.downstream == "down")
    guard case .ignore = state.receiveValue() else {
      Issue.record("expected .ignore")
      return
    }
  }

  @Test func drop_otherCompletesFirst_endsTheSubscription() {
    var state = Drop.dropping(.init(downstream: "down"))
    let upstream = Link()
    _ = state.subscribeUpstream(upstream)
    let released = state.otherCompleted()
    #expect(released?.downstream == "down" && (released?.upstream as? Link) === upstream)
    check(state.end() == nil)
  }
}

/// `#expect` for a condition that calls a mutating transition, which the macro can't expand.
private func check(_ condition: Bool, sourceLocation: SourceLocation = #_sourceLocation) {
  #expect(condition, sourceLocation: sourceLocation)
}
