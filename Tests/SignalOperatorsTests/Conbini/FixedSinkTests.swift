import SignalOperators
import StreamConbini
import StreamCore
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct FixedSinkTests {
  let upstream = TestPublisher<Int, TestError>()

  @Test func subscribe_requestsExactlyTheFixedDemandOnce() {
    let log = LockedState<[String]>([])
    let token = upstream.sink(
      fixedDemand: 3,
      receiveCompletion: { completion in log.withLock { $0.append("\(completion)") } },
      receiveValue: { value in log.withLock { $0.append("\(value)") } }
    )
    upstream.send(1)
    upstream.send(2)
    withExtendedLifetime(token) {
      #expect(upstream.requests == [.demand(.max(3))])
      #expect(log.withLock { $0 } == ["1", "2"])
    }
  }

  /// Conbini's README form: `FixedSink(demand: 5) { value in ... }`, the completion closure
  /// left out.
  @Test func readmeForm_trailingValueClosure_noCompletionClosure() {
    let log = LockedState<[Int]>([])
    let sink = Subscribers.FixedSink<Int, TestError>(demand: 2) { value in
      log.withLock { $0.append(value) }
    }
    upstream.subscribe(sink)
    upstream.send(1)
    upstream.send(2)
    upstream.send(3)
    #expect(log.withLock { $0 } == [1, 2])
    #expect(upstream.requests == [.demand(.max(2)), .cancel])
    #expect(sink.receiveCompletion == nil)
  }

  /// Without closures the values still count: the sink ends after the fixed demand.
  @Test func noClosures_stillEndsAfterTheFixedDemand() {
    let token = upstream.sink(fixedDemand: 2, receiveCompletion: nil, receiveValue: nil)
    upstream.send(1)
    #expect(upstream.requests == [.demand(.max(2))])
    upstream.send(2)
    withExtendedLifetime(token) {
      #expect(upstream.requests == [.demand(.max(2)), .cancel])
    }
  }

  @Test func nthValue_deliversThenFinishesThenCancelsUpstream() {
    let log = LockedState<[String]>([])
    let token = upstream.sink(
      fixedDemand: 2,
      receiveCompletion: { completion in
        let requests = upstream.requests
        log.withLock { $0.append("completion \(completion) after \(requests.count) requests") }
      },
      receiveValue: { value in log.withLock { $0.append("\(value)") } }
    )
    upstream.send(1)
    upstream.send(2)
    upstream.send(3)
    withExtendedLifetime(token) {
      #expect(log.withLock { $0 } == ["1", "2", "completion finished after 1 requests"])
      #expect(upstream.requests == [.demand(.max(2)), .cancel])
      #expect(upstream.violations.isEmpty)
    }
  }

  @Test func completionBeforeDemandIsMet_passesThroughWithoutCancel() {
    let log = LockedState<[String]>([])
    let token = upstream.sink(
      fixedDemand: 3,
      receiveCompletion: { completion in log.withLock { $0.append("\(completion)") } },
      receiveValue: { value in log.withLock { $0.append("\(value)") } }
    )
    upstream.send(1)
    upstream.send(completion: .failure(TestError()))
    withExtendedLifetime(token) {
      let failure = Subscribers.Completion<TestError>.failure(TestError())
      #expect(log.withLock { $0 } == ["1", "\(failure)"])
      #expect(upstream.requests == [.demand(.max(3))])
    }
  }

  @Test func cancel_cancelsUpstreamAndDropsLaterEvents() {
    let log = LockedState<[String]>([])
    let token = upstream.sink(
      fixedDemand: 3,
      receiveCompletion: { completion in log.withLock { $0.append("\(completion)") } },
      receiveValue: { value in log.withLock { $0.append("\(value)") } }
    )
    upstream.send(1)
    token.cancel()
    token.cancel()
    upstream.send(2)
    upstream.send(completion: .finished)
    #expect(log.withLock { $0 } == ["1"])
    #expect(upstream.requests == [.demand(.max(3)), .cancel])
  }

  @Test func cancelFromInsideReceiveValue_stopsLaterValues() {
    let log = LockedState<[String]>([])
    let holder = LockedState<(any Cancellable)?>(nil)
    let sink = Subscribers.FixedSink<Int, TestError>(
      demand: 3,
      receiveCompletion: { completion in log.withLock { $0.append("\(completion)") } },
      receiveValue: { value in
        log.withLock { $0.append("\(value)") }
        holder.withLock { $0 }?.cancel()
      }
    )
    holder.withLock { $0 = sink }
    upstream.subscribe(sink)
    upstream.send(1)
    upstream.send(2)
    #expect(log.withLock { $0 } == ["1"])
    #expect(upstream.requests == [.demand(.max(3)), .cancel])
  }

  @Test func end_releasesTheClosures() {
    final class Token: Sendable {}
    weak var weakToken: Token?
    let sink: Subscribers.FixedSink<Int, TestError>
    do {
      let token = Token()
      weakToken = token
      sink = Subscribers.FixedSink(
        demand: 1,
        receiveCompletion: { _ in withExtendedLifetime(token) {} },
        receiveValue: { _ in withExtendedLifetime(token) {} }
      )
    }
    upstream.subscribe(sink)
    #expect(weakToken != nil)
    #expect(sink.receiveValue != nil)
    upstream.send(1)
    #expect(weakToken == nil)
    #expect(sink.receiveValue == nil)
    #expect(sink.receiveCompletion == nil)
    #expect(sink.demand == 1)
  }

  @Test func secondSubscription_isCancelled() {
    let sink = Subscribers.FixedSink<Int, TestError>(
      demand: 1,
      receiveCompletion: { _ in },
      receiveValue: { _ in }
    )
    let other = TestPublisher<Int, TestError>()
    upstream.subscribe(sink)
    other.subscribe(sink)
    #expect(other.requests == [.cancel])
    #expect(upstream.requests == [.demand(.max(1))])
  }

  @Test func zeroDemand_traps() async {
    let trap1 = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      _ = Subscribers.FixedSink<Int, Never>(
        demand: 0,
        receiveCompletion: { _ in },
        receiveValue: { _ in }
      )
    }
    expectTrap(trap1, "FixedSink: demand must be greater than zero, got 0")
  }

  @Test func negativeDemand_traps() async {
    let trap2 = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      _ = Just(1).sink(fixedDemand: -1, receiveCompletion: { _ in }, receiveValue: { _ in })
    }
    expectTrap(trap2, "FixedSink: demand must be greater than zero, got -1")
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
        let sink = { () -> Subscribers.FixedSink<Int, Never> in
          let canceller = Canceller()
          let sink = Subscribers.FixedSink<Int, Never>(
            demand: 5,
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
        let sink = { () -> Subscribers.FixedSink<Int, Never> in
          let canceller = Canceller()
          let sink = Subscribers.FixedSink<Int, Never>(
            demand: 5,
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
