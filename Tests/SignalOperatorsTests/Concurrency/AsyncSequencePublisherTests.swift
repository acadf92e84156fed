import SignalOperators
import StreamConcurrency
import StreamCore
import StreamTesting
import Synchronization
import Testing

@Suite(.timeLimit(.minutes(5))) struct AsyncSequencePublisherTests {
  /// How long a test waits for the publisher's task. Long, because a new task's first job
  /// queues behind every test job already waiting for the two-thread cooperative pool; on a
  /// loaded machine that took more than 30 s. Passing tests don't wait for it.
  static let patience: Duration = .seconds(120)

  /// Yields 1...limit and counts how often `next()` was called.
  struct CountingSequence: AsyncSequence, Sendable {
    typealias Element = Int
    typealias Failure = Never

    let limit: Int
    let pulls: Counter

    struct AsyncIterator: AsyncIteratorProtocol {
      let limit: Int
      let pulls: Counter
      var current = 0

      mutating func next() async -> Int? {
        pulls.increment()
        guard current < limit else { return nil }
        current += 1
        return current
      }
    }

    func makeAsyncIterator() -> AsyncIterator {
      AsyncIterator(limit: limit, pulls: pulls)
    }
  }

  final class Counter: Sendable {
    private let count = Atomic(0)
    func increment() { count.add(1, ordering: .relaxed) }
    var value: Int { count.load(ordering: .relaxed) }
  }

  /// Waits in `next()` until its task is cancelled, then ends.
  struct NeverEndingSequence: AsyncSequence, Sendable {
    typealias Element = Int
    typealias Failure = Never

    let pulls: Counter
    let cancellations: Counter

    struct AsyncIterator: AsyncIteratorProtocol {
      let pulls: Counter
      let cancellations: Counter

      mutating func next() async -> Int? {
        pulls.increment()
        let gate = AsyncStream<Int> { _ in }
        let cancellations = cancellations
        return await withTaskCancellationHandler {
          var iterator = gate.makeAsyncIterator()
          return await iterator.next()
        } onCancel: {
          cancellations.increment()
        }
      }
    }

    func makeAsyncIterator() -> AsyncIterator {
      AsyncIterator(pulls: pulls, cancellations: cancellations)
    }
  }

  private static func stream(_ values: [Int]) -> AsyncStream<Int> {
    AsyncStream { continuation in
      for value in values { continuation.yield(value) }
      continuation.finish()
    }
  }

  // Issue 15: every subscription has a description and a mirror.
  @Test func subscription_mirrorsDownstreamAndDemand() throws {
    let recorder = RecordingSubscriber<Int, Never>(initialDemand: nil)
    Self.stream([]).publisher.subscribe(recorder)
    let subscription = try #require(recorder.subscription)
    let playground = subscription as? any CustomPlaygroundDisplayConvertible
    #expect(playground?.playgroundDescription as? String == "AsyncSequence")
    let children = { Mirror(reflecting: subscription).children }
    #expect(children().map(\.label) == ["downstream", "demand"])
    #expect(children().first?.value as? RecordingSubscriber<Int, Never> === recorder)
    #expect(Array(children())[1].value as? Subscribers.Demand == Subscribers.Demand.none)
    subscription.cancel()
    #expect(children().map { String(describing: $0.value) } == ["nil", "max(0)"])
  }

  @Test func stream_deliversEveryValue_thenFinishes() async {
    let values = await Self.stream([1, 2, 3]).publisher.expectAll(timeout: Self.patience)
    #expect(values == [1, 2, 3])
  }

  @Test func throwingSequence_fails() async {
    let stream = AsyncThrowingStream<Int, any Error> { continuation in
      continuation.yield(1)
      continuation.finish(throwing: TestError())
    }
    let failure = await stream.publisher.expectFailure(timeout: Self.patience)
    #expect(failure is TestError)
  }

  @Test func noRequest_noIteration() async {
    let pulls = Counter()
    let recorder = RecordingSubscriber<Int, Never>(initialDemand: nil)
    CountingSequence(limit: 5, pulls: pulls).publisher.subscribe(recorder)
    #expect(recorder.events == [.subscription])
    #expect(pulls.value == 0)
    recorder.cancel()
  }

  @Test func boundedDemand_pullsOnlyWhatWasRequested() async {
    let pulls = Counter()
    let recorder = RecordingSubscriber<Int, Never>(initialDemand: .max(2))
    CountingSequence(limit: 5, pulls: pulls).publisher.subscribe(recorder)
    #expect(await asyncBridgeEventually { recorder.values.count == 2 })
    #expect(pulls.value == 2)
    recorder.request(.max(10))
    #expect(await asyncBridgeEventually { recorder.completion != nil })
    #expect(recorder.values == [1, 2, 3, 4, 5])
    #expect(recorder.completion == .finished)
    #expect(pulls.value == 6)
    #expect(recorder.violations.isEmpty)
  }

  @Test func demandFromReceive_isHonoured() async {
    let recorder = RecordingSubscriber<Int, Never>(initialDemand: .max(1), demandPerValue: .max(1))
    Self.stream([1, 2, 3, 4]).publisher.subscribe(recorder)
    #expect(await asyncBridgeEventually { recorder.completion != nil })
    #expect(recorder.values == [1, 2, 3, 4])
  }

  @Test func cancel_cancelsTheTask() async {
    let pulls = Counter()
    let cancellations = Counter()
    let recorder = RecordingSubscriber<Int, Never>(initialDemand: .unlimited)
    NeverEndingSequence(pulls: pulls, cancellations: cancellations).publisher.subscribe(recorder)
    #expect(await asyncBridgeEventually { pulls.value == 1 })
    recorder.cancel()
    #expect(await asyncBridgeEventually { cancellations.value == 1 })
    #expect(recorder.events == [.subscription])
  }

  @Test func cancelFromReceive_stopsIteration() async {
    let pulls = Counter()
    let holder = RecorderHolder<Int, Never>()
    let recorder = RecordingSubscriber<Int, Never>(initialDemand: nil) { value in
      if value == 2 { holder.recorder?.cancel() }
      return .none
    }
    CountingSequence(limit: 100, pulls: pulls).publisher.subscribe(recorder)
    holder.recorder = recorder
    recorder.request(.unlimited)
    #expect(await asyncBridgeEventually { recorder.values.count == 2 })
    #expect(recorder.values == [1, 2])
    #expect(pulls.value == 2)
  }

  @Test func description_isAsyncSequence() {
    let recorder = RecordingSubscriber<Int, Never>(initialDemand: nil)
    Self.stream([]).publisher.subscribe(recorder)
    #expect(recorder.subscriptionDescription == "AsyncSequence")
    recorder.cancel()
  }

  @Test func subscription_releasedAfterCompletion() async {
    weak var weakSubscription: AnyObject?
    let recorder = RecordingSubscriber<Int, Never>(initialDemand: nil)
    Self.stream([1]).publisher.subscribe(recorder)
    weakSubscription = recorder.subscription as AnyObject?
    #expect(weakSubscription != nil)
    recorder.request(.unlimited)
    #expect(await asyncBridgeEventually { recorder.completion != nil })
    #expect(await asyncBridgeEventually { weakSubscription == nil })
  }

  @Test func conformance() async {
    await asyncBridgeOffThePool {
      PublisherConformance(
        elements: 3,
        timeout: Self.patience,
        makePublisher: { CountingSequence(limit: 3, pulls: Counter()).publisher },
        makeLongPublisher: { CountingSequence(limit: 1_000_000, pulls: Counter()).publisher }
      )
      .run()
    }
    .expectAllPassed(skipping: ["SC-1.05", "SC-2.04"])
  }

  @Test func conformance_asyncStream_sharedBySubscriptions() async {
    await asyncBridgeOffThePool {
      PublisherConformance(
        elements: 3,
        independentSubscriptions: false,
        timeout: Self.patience,
        makePublisher: { Self.stream([1, 2, 3]).publisher },
        makeLongPublisher: { Self.stream(Array(0..<100_000)).publisher }
      )
      .run()
    }
    .expectAllPassed(skipping: ["SC-1.05", "SC-2.04", "SC-5.01"])
  }
}
