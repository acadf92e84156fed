import StreamCore
import StreamSnail
import Testing

@testable import SignalOperators
@testable import StreamCombineExt

/// The replay subscription's state machine, driven without threads or subscribers.
@Suite(.timeLimit(.minutes(5))) struct ReplayConduitStateTests {
  struct Boom: Error, Equatable {}

  typealias State = ReplaySubject<Int, Boom>.ConduitState<String>

  /// Drains like the conduit does, returning the values and whether the completion came.
  static func drain(
    _ state: inout State,
    demandPerValue: Subscribers.Demand = .none
  ) -> (values: [Int], completion: Subscribers.Completion<Boom>?) {
    var values: [Int] = []
    var more = Subscribers.Demand.none
    while let step = state.nextStep(adding: more) {
      switch step {
      case .value(let value):
        values.append(value)
        more = demandPerValue
      case .completion(let completion, let released):
        #expect(released.downstream == "downstream")
        return (values, completion)
      }
    }
    return (values, nil)
  }

  static func replay(_ values: [Int]) -> RingBuffer<Int> {
    var buffer = RingBuffer<Int>()
    for value in values { buffer.append(value) }
    return buffer
  }

  @Test func newSubscription_ownsTheDrain_andWaitsForDemand() {
    var state = State(downstream: "downstream", replay: Self.replay([1, 2]), completion: nil)
    // The subscribing thread's drain: no demand yet, so it lets go.
    #expect(Self.drain(&state).values == [])
    // A request claims the drain and moves the replayed values it covers to `ready`.
    #expect(state.request(.max(1)) == "downstream")
    #expect(Self.drain(&state).values == [1])
    #expect(state.request(.max(5)) == "downstream")
    #expect(Self.drain(&state).values == [2])
  }

  @Test func enqueue_withoutDemand_keepsAtMostTheCapacity() {
    var state = State(downstream: "downstream", replay: RingBuffer(), completion: nil)
    #expect(Self.drain(&state).values == [])
    for value in 1...4 {
      let claimed = state.enqueue(value, capacity: 2)
      #expect(!claimed)
    }
    #expect(state.request(.unlimited) == "downstream")
    #expect(Self.drain(&state).values == [3, 4])
  }

  @Test func enqueue_withDemand_handsTheDrainToTheSender_once() {
    var state = State(downstream: "downstream", replay: RingBuffer(), completion: nil)
    #expect(Self.drain(&state).values == [])
    #expect(state.request(.max(2)) == nil)  // nothing to deliver: no claim
    let first = state.enqueue(1, capacity: 2)
    let second = state.enqueue(2, capacity: 2)
    #expect(first && !second)
    #expect(state.takeHandOff() == "downstream")
    #expect(state.takeHandOff() == nil)
    #expect(Self.drain(&state).values == [1, 2])
  }

  @Test func completion_waitsForKeptValues_thenEndsTheState() {
    var state = State(downstream: "downstream", replay: Self.replay([1]), completion: nil)
    #expect(Self.drain(&state).values == [])
    let claimed = state.finish(.failure(Boom()))
    #expect(!claimed)  // a kept value goes first, when demand allows
    #expect(state.request(.max(1)) == "downstream")
    let drained = Self.drain(&state)
    #expect(drained.values == [1])
    #expect(drained.completion == .failure(Boom()))
    #expect(state.request(.max(1)) == nil)
    #expect(state.cancel() == nil)
  }

  @Test func completion_withNothingKept_isHandedToTheCompletingThread() {
    var state = State(downstream: "downstream", replay: RingBuffer(), completion: nil)
    #expect(Self.drain(&state).values == [])
    let claimed = state.finish(.finished)
    #expect(claimed)
    #expect(state.takeHandOff() == "downstream")
    #expect(Self.drain(&state).completion == .finished)
  }

  @Test func cancel_releasesEverythingKept_once() {
    var state = State(downstream: "downstream", replay: Self.replay([1, 2]), completion: nil)
    let released = state.cancel()
    #expect(released?.downstream == "downstream")
    #expect(released.map { Array($0.waiting) } == [1, 2])
    #expect(state.cancel() == nil)
    let claimed = state.enqueue(3, capacity: 2)
    #expect(!claimed)
    #expect(state.nextStep(adding: .none) == nil)
  }
}
