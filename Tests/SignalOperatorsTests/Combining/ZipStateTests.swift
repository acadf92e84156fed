import StreamCore
import Testing

@testable import SignalOperators

private struct Boom: Error, Equatable {}

/// `"finished"` or `"failure"`.
private func name(_ completion: Subscribers.Completion<Boom>) -> String {
  if case .failure = completion { return "failure" }
  return "finished"
}

private typealias Queues = ZipQueues2<Int, String>
private typealias State = ZipState<Queues, Boom>
private typealias Left = CombiningSlot0<Queues>
private typealias Right = CombiningSlot1<Queues>

private typealias Probe = SubscriptionProbe

/// Drains `state` as the drain owner would; the log names each step.
private func drainAll(_ state: inout State) -> [String] {
  var log: [String] = []
  while true {
    switch state.nextStep() {
    case .value(let output):
      log.append("\(output.0)\(output.1)")
    case .completion(let completion, _, let released):
      log.append("\(name(completion)) unpaired \(Array(released.queue0)) \(Array(released.queue1))")
      return log
    case .stop:
      return log
    }
  }
}

/// A state with both upstreams subscribed.
private func subscribed(_ left: Probe, _ right: Probe) -> State {
  var state = State()
  let result1 = state.subscribed(left, at: 0)
  #expect(result1 == Subscribers.Demand.none)
  let result2 = state.subscribed(right, at: 1)
  #expect(result2 == Subscribers.Demand.none)
  return state
}

@Suite(.timeLimit(.minutes(5))) struct ZipStateTests {
  @Test func lateSubscription_requestsEverythingAskedSoFar_secondIsCancelled() {
    var state = State()
    let calls = state.add(.max(3), except: nil)
    #expect(calls?.isEmpty == true)
    let result3 = state.subscribed(Probe(), at: 0)
    #expect(result3 == .max(3))
    let result4 = state.subscribed(Probe(), at: 0)
    #expect(result4 == nil)
  }

  @Test func tuples_waitForDemand() {
    var state = subscribed(Probe(), Probe())
    let result5 = state.put(1, slot: Left.self)
    #expect(result5)
    let result6 = state.put("a", slot: Right.self)
    #expect(result6)
    #expect(!state.canDeliver)
    _ = state.add(.max(1), except: nil)
    #expect(state.canDeliver)
    #expect(drainAll(&state) == ["1a"])
  }

  @Test func request_isForwardedToEveryUpstreamButTheOneExcepted() {
    let left = Probe()
    let right = Probe()
    var state = subscribed(left, right)
    state.add(.max(2), except: 0)?.request(.max(2))
    #expect(left.requested == [])
    #expect(right.requested == [.max(2)])
  }

  @Test func finishedUpstreamWithEmptyQueue_endsThenCancelsTheOthersAfterTheCompletion() {
    let left = Probe()
    let right = Probe()
    var state = subscribed(left, right)
    let action = state.complete(.finished, at: 0)
    #expect(action.ending)
    #expect(action.released as? Probe === left)
    #expect(action.cancels.isEmpty)  // as Combine: the completion goes down first
    let result7 = state.put("late", slot: Right.self)
    #expect(!result7)
    guard case .completion(let completion, let cancels, _) = state.nextStep() else {
      Issue.record("expected the completion")
      return
    }
    #expect(name(completion) == "finished")
    cancels.cancel()
    #expect(right.cancelled)
    #expect(!left.cancelled)
    #expect(state.isEnded)
  }

  @Test func finishedUpstreamWithQueuedValues_endsWhenItsQueueRunsDry() {
    var state = subscribed(Probe(), Probe())
    _ = state.put(1, slot: Left.self)
    let action = state.complete(.finished, at: 0)
    #expect(!action.ending)
    _ = state.put("a", slot: Right.self)
    _ = state.add(.max(5), except: nil)
    let (output, ending) = state.takeTuple()
    #expect(output.0 == 1 && output.1 == "a")
    #expect(ending)
    #expect(drainAll(&state) == ["finished unpaired [] []"])
  }

  @Test func failure_deliversTheTuplesDemandCovers_thenFails_releasingTheRest() {
    var state = subscribed(Probe(), Probe())
    _ = state.add(.max(1), except: nil)
    _ = state.put(1, slot: Left.self)
    _ = state.put(2, slot: Left.self)
    _ = state.put("a", slot: Right.self)
    _ = state.put("b", slot: Right.self)
    let failing = state.complete(.failure(Boom()), at: 1)
    #expect(failing.ending)
    #expect(drainAll(&state) == ["1a", "failure unpaired [2] [\"b\"]"])
  }

  @Test func cancel_whileEnding_handsOutValuesAndPendingCompletion() {
    let left = Probe()
    let right = Probe()
    var state = subscribed(left, right)
    _ = state.put(1, slot: Left.self)
    let failing = state.complete(.failure(Boom()), at: 1)
    #expect(failing.cancels.isEmpty)  // the others are cancelled after the completion
    let released = state.cancel()
    released.cancels.cancel()
    #expect(left.cancelled)
    #expect(right.cancelled)  // the failing upstream is cancelled too, as in Combine
    #expect(Array(released.storage.queue0) == [1])
    #expect(released.completion.map(name) == "failure")
    #expect(state.isEnded)
    let result8 = state.add(.max(1), except: nil)
    #expect(result8?.isEmpty == nil)
    #expect(drainAll(&state) == [])
  }

  @Test func request_forwardsToEveryUpstream_andSaysWhetherATupleIsReady() {
    let left = Probe()
    let right = Probe()
    var state = subscribed(left, right)
    let idle = state.request(.max(1))
    idle?.calls.request(.max(1))
    #expect(idle?.ready == false)
    #expect(left.requested == [.max(1)] && right.requested == [.max(1)])
    _ = state.put(1, slot: Left.self)
    _ = state.put("a", slot: Right.self)
    let ready = state.request(.max(1))
    #expect(ready?.ready == true)
    #expect(drainAll(&state) == ["1a"])
    _ = state.cancel()
    let ended = state.request(.max(1))
    #expect(ended == nil)
  }
}
