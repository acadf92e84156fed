import StreamCore
import StreamTesting
import Testing

@testable import StreamPropagate

private typealias Recorder = RecordingSubscriber<Int, StreamTestError>
private typealias State = StreamViewState<Int, StreamTestError, Recorder>

/// A stream to subscribe to; the publisher is kept so the stream is not cancelled.
private struct Source {
  let publisher = StreamPublisher<Int, StreamTestError>()
  let stream: StreamSubscriber<Int, StreamTestError>

  init() {
    stream = publisher.subscriber()
  }
}

/// A new state whose drain the subscribing thread still holds.
private func subscribed(_ source: Source) -> State {
  State(downstream: Recorder(initialDemand: nil), source: source.stream)
}

/// What a drain run on `state` delivers, each value asking for `more`.
private func drained(
  _ state: inout State,
  adding initial: Subscribers.Demand = .none,
  more: Subscribers.Demand = .none
) -> (values: [Int], completion: Subscribers.Completion<StreamTestError>?) {
  var values: [Int] = []
  var adding = initial
  while let step = state.nextStep(adding: adding) {
    switch step {
    case .value(let value):
      values.append(value)
      adding = more
    case .completion(let completion, _):
      return (values, completion)
    }
  }
  return (values, nil)
}

/// Whether `offered` claimed the drain.
private func claims(_ offered: State.Offered) -> Bool {
  if case .drain = offered { return true }
  return false
}

/// The released value `offered` hands out.
private func released(_ offered: State.Offered) -> Int? {
  switch offered {
  case .done(let value), .drain(_, let value): value
  }
}

/// StreamViewSubscription's state machine, driven without threads.
@Suite(.timeLimit(.minutes(5))) struct StreamViewStateTests {
  @Test func subscribingThread_holdsTheDrainUntilItRunsIt() {
    let source = Source()
    var state = subscribed(source)
    let requested = state.request(.max(1))
    #expect(requested == nil)  // only adds demand: the drain is held
    let offered = state.offer(1, keepsLatest: false)
    #expect(!claims(offered))
    let run = drained(&state)
    #expect(run.values == [1])
    #expect(run.completion == nil)
    let next = state.offer(2, keepsLatest: false)
    #expect(!claims(next))  // no demand left: dropped
  }

  @Test func offer_withDemand_claimsTheIdleDrain() {
    let source = Source()
    var state = subscribed(source)
    _ = drained(&state, adding: .max(2))
    let first = state.offer(1, keepsLatest: false)
    #expect(claims(first))
    let second = state.offer(2, keepsLatest: false)
    #expect(!claims(second))  // queued behind the delivery under way
    #expect(drained(&state).values == [1, 2])
  }

  @Test func keepsLatest_withoutDemand_replacesAndDeliversOnRequest() {
    let source = Source()
    var state = subscribed(source)
    _ = drained(&state)
    let first = state.offer(1, keepsLatest: true)
    #expect(released(first) == nil)
    let second = state.offer(2, keepsLatest: true)
    #expect(!claims(second))
    #expect(released(second) == 1)
    let downstream = state.request(.max(1))
    #expect(downstream != nil)
    #expect(drained(&state, adding: .max(1)).values == [2])
  }

  @Test func keepsLatest_aNewerValueWhileAnotherThreadDelivers_dropsTheKeptOne() {
    let source = Source()
    var state = subscribed(source)  // the drain is held, as by another thread
    let kept = state.offer(0, keepsLatest: true)  // no demand: kept
    #expect(released(kept) == nil)
    let requested = state.request(.max(1))
    #expect(requested == nil)  // only adds demand: the drain is held
    let newer = state.offer(1, keepsLatest: true)
    #expect(!claims(newer))
    #expect(released(newer) == 0)
    #expect(drained(&state).values == [1])
    let later = state.request(.max(1))
    #expect(later == nil)  // nothing kept: the older value doesn't follow the newer one
  }

  @Test func request_withoutAKeptValue_onlyAddsDemand() {
    let source = Source()
    var state = subscribed(source)
    _ = drained(&state)
    let requested = state.request(.max(1))
    #expect(requested == nil)
    let offered = state.offer(1, keepsLatest: true)
    #expect(claims(offered))
  }

  @Test func end_deliversQueuedThenLastWithDemandThenCompletion() {
    let source = Source()
    var state = subscribed(source)
    _ = state.request(.max(2))
    _ = state.offer(1, keepsLatest: false)
    let ended = state.end(last: 9, .finished)
    #expect(ended == nil)  // the drain is held
    let ignored = state.offer(2, keepsLatest: false)
    #expect(!claims(ignored))
    let run = drained(&state)
    #expect(run.values == [1, 9])
    #expect(run.completion == .finished)
    let cancelled = state.cancel()
    #expect(cancelled == nil)
  }

  @Test func end_withoutDemand_dropsLastAndHandsItOut() {
    let source = Source()
    var state = subscribed(source)
    _ = drained(&state)
    let ended = state.end(last: 9, .failure(StreamTestError(1)))
    #expect(ended != nil)
    let step = state.nextStep(adding: .none)
    guard case .completion(let completion, let released) = step else {
      Issue.record("expected the completion, got \(String(describing: step))")
      return
    }
    #expect(completion == .failure(StreamTestError(1)))
    #expect(released.last == 9)
    #expect(released.source === source.stream)
    let after = state.nextStep(adding: .max(1))
    #expect(after == nil)
  }

  @Test func cancel_handsOutEverythingAndIgnoresLaterEvents() {
    let source = Source()
    var state = subscribed(source)
    let callback = StreamCallback<Int, StreamTestError>(delivery: .inline) { _ in }
    let stale = state.install(callback)
    #expect(stale == nil)
    _ = state.request(.max(1))
    _ = state.offer(1, keepsLatest: true)
    _ = state.offer(2, keepsLatest: true)
    let cancelled = state.cancel()
    #expect(cancelled?.callback === callback)
    #expect(cancelled.map { Array($0.queue) } == [1])
    #expect(cancelled?.latest == 2)
    let again = state.cancel()
    #expect(again == nil)
    let late = state.install(callback)
    #expect(late === callback)  // to unregister: the subscription ended
    let offered = state.offer(3, keepsLatest: true)
    #expect(!claims(offered))
    let ended = state.end(last: nil, .finished)
    #expect(ended == nil)
    let requested = state.request(.max(1))
    #expect(requested == nil)
  }

  @Test func cancel_whileEnding_handsOutLastAndCompletion() {
    let source = Source()
    var state = subscribed(source)
    _ = state.end(last: 9, .failure(StreamTestError(2)))
    let cancelled = state.cancel()
    #expect(cancelled?.last == 9)
    #expect(cancelled?.completion == .failure(StreamTestError(2)))
  }
}
