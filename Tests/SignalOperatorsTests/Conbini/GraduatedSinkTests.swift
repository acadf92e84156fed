import SignalOperators
import StreamConbini
import StreamCore
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct GraduatedSinkTests {
  let upstream = TestPublisher<Int, Never>()

  @Test func subscribe_requestsMaxDemandOnce() {
    let token = upstream.sink(
      maxDemand: .max(3),
      receiveCompletion: { _ in },
      receiveValue: { _ in }
    )
    withExtendedLifetime(token) {
      #expect(upstream.requests == [.demand(.max(3))])
      #expect(upstream.outstandingDemand == .max(3))
    }
  }

  /// Conbini's README forms: `sink(maxDemand:) { value in ... }` and
  /// `GraduatedSink(maxDemand:) { value in ... }`, the completion closure left out.
  @Test func readmeForms_trailingValueClosure_noCompletionClosure() {
    let values = LockedState<[Int]>([])
    let token = upstream.sink(maxDemand: .max(3)) { value in values.withLock { $0.append(value) } }
    let sink = Subscribers.GraduatedSink<Int, Never>(maxDemand: .max(1)) { value in
      values.withLock { $0.append(value * 10) }
    }
    upstream.subscribe(sink)
    upstream.send(1)
    upstream.send(2)
    withExtendedLifetime(token) {
      #expect(values.withLock { $0 } == [1, 10, 2, 20])
      #expect(sink.receiveCompletion == nil)
    }
  }

  /// Without a value closure each value still asks for one more, so the demand stays steady.
  @Test func noValueClosure_stillAsksForOneMorePerValue() {
    let token = upstream.sink(maxDemand: .max(2), receiveCompletion: nil, receiveValue: nil)
    for value in 1...5 { upstream.send(value) }
    withExtendedLifetime(token) {
      #expect(upstream.outstandingDemand == .max(2))
      #expect(upstream.violations.isEmpty)
    }
  }

  @Test func eachValue_asksForOneMore() {
    let values = LockedState<[Int]>([])
    let token = upstream.sink(
      maxDemand: .max(2),
      receiveCompletion: { _ in },
      receiveValue: { value in
        values.withLock { $0.append(value) }
      }
    )
    for value in 1...10 {
      upstream.send(value)
      #expect(upstream.outstandingDemand == .max(2))
    }
    withExtendedLifetime(token) {
      #expect(values.withLock { $0 } == Array(1...10))
      #expect(upstream.requests == [.demand(.max(2))])
      #expect(upstream.violations.isEmpty)
    }
  }

  @Test func inFlight_neverExceedsMaxDemand() {
    let seenDemand = LockedState<[Subscribers.Demand]>([])
    let token = upstream.sink(
      maxDemand: .max(2),
      receiveCompletion: { _ in },
      receiveValue: { _ in
        let outstanding = upstream.outstandingDemand
        seenDemand.withLock { $0.append(outstanding) }
      }
    )
    upstream.send(1)
    upstream.send(2)
    withExtendedLifetime(token) {
      #expect(seenDemand.withLock { $0 }.allSatisfy { $0 <= .max(2) })
      #expect(upstream.outstandingDemand == .max(2))
    }
  }

  @Test func completion_passesThrough() {
    let log = LockedState<[String]>([])
    let token = upstream.sink(
      maxDemand: .max(1),
      receiveCompletion: { completion in log.withLock { $0.append("\(completion)") } },
      receiveValue: { value in log.withLock { $0.append("\(value)") } }
    )
    upstream.send(1)
    upstream.send(completion: .finished)
    withExtendedLifetime(token) {
      #expect(log.withLock { $0 } == ["1", "finished"])
      #expect(upstream.requests == [.demand(.max(1))])
    }
  }

  @Test func cancel_cancelsUpstreamAndReleasesClosures() {
    let log = LockedState<[Int]>([])
    let sink = Subscribers.GraduatedSink<Int, Never>(
      maxDemand: .max(2),
      receiveCompletion: { _ in },
      receiveValue: { value in log.withLock { $0.append(value) } }
    )
    upstream.subscribe(sink)
    upstream.send(1)
    sink.cancel()
    upstream.send(2)
    #expect(log.withLock { $0 } == [1])
    #expect(upstream.requests == [.demand(.max(2)), .cancel])
    #expect(sink.receiveValue == nil)
    #expect(sink.receiveCompletion == nil)
    #expect(sink.maxDemand == .max(2))
  }

  @Test func unlimitedMaxDemand_staysUnlimited() {
    let token = upstream.sink(
      maxDemand: .unlimited,
      receiveCompletion: { _ in },
      receiveValue: { _ in }
    )
    upstream.send(1)
    withExtendedLifetime(token) {
      #expect(upstream.requests == [.demand(.unlimited)])
      #expect(upstream.outstandingDemand == .unlimited)
    }
  }

  @Test func noneMaxDemand_traps() async {
    let trap1 = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      _ = Subscribers.GraduatedSink<Int, Never>(
        maxDemand: .none,
        receiveCompletion: { _ in },
        receiveValue: { _ in }
      )
    }
    expectTrap(trap1, "GraduatedSink: maxDemand must be greater than zero, got max(0)")
  }

  /// A closure's captures may cancel the sink from their deinit; the sink must release its
  /// closures after its lock, or that re-entry traps. Runs in a child process, because the old
  /// bug crashed.
  @Test func closureWhoseCapturesCancelTheSink_releasedOutsideTheLock() async {
    await #expect(processExitsWith: .success) {
      final class Canceller {
        var sink: (any Cancellable)?
        deinit { sink?.cancel() }
      }
      let subject = PassthroughSubject<Int, Never>()
      do {
        // Only the sink's closures keep the canceller once this scope ends.
        let sink = { () -> Subscribers.GraduatedSink<Int, Never> in
          let canceller = Canceller()
          let sink = Subscribers.GraduatedSink<Int, Never>(
            maxDemand: .max(2),
            receiveCompletion: { _ in _ = canceller },
            receiveValue: { _ in _ = canceller }
          )
          canceller.sink = sink
          return sink
        }()
        subject.subscribe(sink)
        sink.cancel()  // releases the closures, so the canceller's deinit cancels again
      }
      do {
        // Only the sink's closures keep the canceller once this scope ends.
        let sink = { () -> Subscribers.GraduatedSink<Int, Never> in
          let canceller = Canceller()
          let sink = Subscribers.GraduatedSink<Int, Never>(
            maxDemand: .max(2),
            receiveCompletion: { _ in _ = canceller },
            receiveValue: { _ in _ = canceller }
          )
          canceller.sink = sink
          return sink
        }()
        subject.subscribe(sink)
        subject.send(completion: .finished)  // the same, through the completion
      }
    }
  }
}
