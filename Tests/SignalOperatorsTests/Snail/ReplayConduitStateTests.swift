import StreamCore
import StreamSnail
import Testing

@testable import SignalOperators
@testable import StreamCombineExt

/// The replay subscription's state machine, driven without threads or subscribers.
@Suite(.timeLimit(.minutes(5))) struct ReplayConduitStateTests {
  struct Boom: Error, Equatable {}

  typealias State = ReplaySubject<Int, Boom>.ConduitState<String>

  /// Drains like the conduit's outermost pass does, returning the values and whether the
  /// completion came.
  static func drain(
    _ state: inout State,
    demandPerValue: Subscribers.Demand = .none
  ) -> (values: [Int], completion: Subscribers.Completion<Boom>?) {
    var values: [Int] = []
    var more = Subscribers.Demand.none
    while let step = state.nextStep(adding: more) {
      switch step {
      case .value(let value, let downstream):
        #expect(downstream == "downstream")
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

  static func request(_ demand: Subscribers.Demand, _ state: inout State) -> Bool {
    state.request(demand)
  }

  static func finish(_ completion: Subscribers.Completion<Boom>, _ state: inout State) -> Bool {
    state.finish(completion)
  }

  /// Offers `value`, returning the target and limit, and checking what was dropped.
  static func offer(
    _ value: Int,
    to state: inout State,
    capacity: Int = 2,
    dropping expectedDrop: Int? = nil
  ) -> (String, limited: Bool)? {
    var dropped: Int?
    let target = state.offer(value, capacity: capacity, dropped: &dropped)
    #expect(dropped == expectedDrop)
    return target
  }

  @Test func newSubscription_keepsTheReplay_untilDemand() {
    var state = State(downstream: "downstream", replay: Self.replay([1, 2]), completion: nil)
    #expect(Self.drain(&state).values == [])
    #expect(Self.request(.max(1), &state))  // something to drain
    #expect(Self.drain(&state).values == [1])
    #expect(Self.request(.max(5), &state))
    #expect(Self.drain(&state).values == [2])
    #expect(!Self.request(.max(1), &state))  // nothing kept: nothing to drain
  }

  @Test func offer_withDemandAndNothingKept_isDeliveredAtOnce_takingOneDemand() {
    var state = State(downstream: "downstream", replay: RingBuffer(), completion: nil)
    _ = state.request(.max(1))
    let first = Self.offer(1, to: &state)
    #expect(first?.0 == "downstream")
    #expect(first?.limited == true)
    // The demand is spent: the next value is kept.
    #expect(Self.offer(2, to: &state) == nil)
    #expect(Self.drain(&state).values == [])
    _ = state.request(.max(1))
    #expect(Self.drain(&state).values == [2])
  }

  @Test func offer_withUnlimitedDemand_isUnlimited() {
    var state = State(downstream: "downstream", replay: RingBuffer(), completion: nil)
    _ = state.request(.unlimited)
    #expect(Self.offer(1, to: &state)?.limited == false)
    #expect(Self.offer(2, to: &state)?.limited == false)
  }

  @Test func offer_behindKeptValues_isKept_evenWithDemand() {
    var state = State(downstream: "downstream", replay: Self.replay([1]), completion: nil)
    _ = state.request(.max(5))  // the drain that would deliver 1 hasn't run yet
    #expect(Self.offer(2, to: &state) == nil)
    #expect(Self.drain(&state).values == [1, 2])
  }

  @Test func offer_withoutDemand_keepsAtMostTheCapacity_droppingTheOldest() {
    var state = State(downstream: "downstream", replay: RingBuffer(), completion: nil)
    #expect(Self.offer(1, to: &state) == nil)
    #expect(Self.offer(2, to: &state) == nil)
    #expect(Self.offer(3, to: &state, dropping: 1) == nil)
    #expect(Self.offer(4, to: &state, dropping: 2) == nil)
    _ = state.request(.unlimited)
    #expect(Self.drain(&state).values == [3, 4])
  }

  @Test func capacityZero_dropsAValueWithoutDemand() {
    var state = State(downstream: "downstream", replay: RingBuffer(), completion: nil)
    #expect(Self.offer(1, to: &state, capacity: 0, dropping: 1) == nil)
    #expect(!Self.request(.max(1), &state))
    #expect(Self.offer(2, to: &state, capacity: 0)?.0 == "downstream")
  }

  @Test func demandReturnedByADelivery_drainsWhatItCovers() {
    var state = State(downstream: "downstream", replay: Self.replay([1, 2, 3]), completion: nil)
    _ = state.request(.max(1))
    #expect(Self.drain(&state, demandPerValue: .max(1)).values == [1, 2, 3])
  }

  @Test func add_fromANestedDelivery_isDrainedByTheOuterPass() {
    var state = State(downstream: "downstream", replay: Self.replay([1]), completion: nil)
    state.add(.max(1))
    #expect(Self.drain(&state).values == [1])
  }

  @Test func completion_waitsForKeptValues_thenEndsTheState() {
    var state = State(downstream: "downstream", replay: Self.replay([1]), completion: nil)
    #expect(Self.drain(&state).values == [])
    #expect(Self.finish(.failure(Boom()), &state))
    #expect(Self.drain(&state).completion == nil)  // a kept value goes first, when demand allows
    // A nested completion doesn't pass the kept value either.
    #expect(state.nextStep(adding: .none, values: false) == nil)
    #expect(Self.request(.max(1), &state))
    let drained = Self.drain(&state)
    #expect(drained.values == [1])
    #expect(drained.completion == .failure(Boom()))
    #expect(!Self.request(.max(1), &state))
    #expect(state.cancel() == nil)
  }

  @Test func completion_withNothingKept_isDeliveredWithoutDemand() {
    var state = State(downstream: "downstream", replay: RingBuffer(), completion: nil)
    #expect(Self.finish(.finished, &state))
    guard case .completion(.finished, _)? = state.nextStep(adding: .none, values: false) else {
      Issue.record("expected the completion")
      return
    }
    #expect(!Self.finish(.finished, &state))  // ended: a second completion finds nothing
  }

  @Test func subscriptionToAnEndedSubject_replaysThenCompletes() {
    var state = State(downstream: "downstream", replay: Self.replay([1]), completion: .finished)
    _ = state.request(.unlimited)
    let drained = Self.drain(&state)
    #expect(drained.values == [1])
    #expect(drained.completion == .finished)
  }

  @Test func cancel_releasesEverythingKept_once() {
    var state = State(downstream: "downstream", replay: Self.replay([1, 2]), completion: nil)
    let released = state.cancel()
    #expect(released?.downstream == "downstream")
    #expect(released.map { Array($0.kept) } == [1, 2])
    #expect(state.cancel() == nil)
    #expect(Self.offer(3, to: &state) == nil)
    #expect(state.nextStep(adding: .none) == nil)
  }
}

/// Equal steps deliver the same value to the same subscriber, or both complete.
extension ReplaySubject.ConduitState.Step: Equatable
where Output: Equatable, Downstream: Equatable {
  static func == (lhs: Self, rhs: Self) -> Bool {
    switch (lhs, rhs) {
    case (.value(let a, let x), .value(let b, let y)): a == b && x == y
    case (.completion, .completion): true
    default: false
    }
  }
}
