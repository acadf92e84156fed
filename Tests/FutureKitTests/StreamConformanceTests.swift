import Dispatch
import FutureKit
import StreamCore
import StreamPropagate
import StreamTesting
import Testing

/// The conformance kit over the StreamCore `Publisher` views of streams. Streams don't complete
/// on their own and drop what arrives without demand, so each view is fed from a background
/// queue as its subscribers request values (as StreamTesting's own tests feed subjects).
@Suite(.timeLimit(.minutes(5))) struct StreamConformanceTests {
  @Test func statesOfASharedStream_passEveryRule() {
    let report = PublisherConformance(
      timeout: .seconds(5),
      makePublisher: {
        StreamFedView(shared: StreamFeed(stateful: false, limit: nil)) { $0.eraseToAnyPublisher() }
      }
    )
    .run()
    report.expectAllPassed(skipping: ["SC-1.05", "SC-2.02", "SC-2.03", "SC-2.04", "SC-4.02"])
    #expect(report.outcome(of: .concurrentRequestAndCancel) == .passed)
  }

  @Test func statesOfASharedStatefulStream_passEveryRule() {
    PublisherConformance(
      timeout: .seconds(5),
      makePublisher: {
        StreamFedView(shared: StreamFeed(stateful: true, limit: nil)) { $0.eraseToAnyPublisher() }
      }
    )
    .run()
    .expectAllPassed(skipping: ["SC-1.05", "SC-2.02", "SC-2.03", "SC-2.04", "SC-4.02"])
  }

  @Test func valuesOfAStreamCancelledAfterThreeValues_passEveryRule() {
    let report = PublisherConformance(
      elements: 3,
      timeout: .seconds(5),
      makePublisher: {
        StreamFedView(fresh: { StreamFeed(stateful: false, limit: 3) }) {
          $0.valuePublisher.eraseToAnyPublisher()
        }
      }
    )
    .run()
    report.expectAllPassed(skipping: ["SC-1.05", "SC-2.04"])
    #expect(report.outcome(of: .finiteElementsThenFinished) == .passed)
  }

  @Test func valuesFailingOnError_passEveryRule() {
    let report = PublisherConformance(
      elements: 3,
      timeout: .seconds(5),
      makePublisher: {
        StreamFedView(fresh: { StreamFeed(stateful: false, limit: 3) }) {
          $0.valuePublisherFailingOnError.eraseToAnyPublisher()
        }
      },
      makeFailingPublisher: {
        StreamFedView(fresh: { StreamFeed(stateful: false, limit: 3) }, failure: StreamTestError(1))
        {
          $0.valuePublisherFailingOnError.eraseToAnyPublisher()
        }
      }
    )
    .run()
    report.expectAllPassed(skipping: ["SC-1.05"])
    #expect(report.outcome(of: .failureExactlyOnce) == .passed)
  }

  @Test func valuesOfASynchronouslyFedStream_passEveryRule() {
    // SC-1.05 is skipped: it needs a million values, too slow in a debug build. See
    // `StreamPublisherViewTests.requestFromInsideReceive_withSynchronousPublishing_doesNotRecurse`.
    PublisherConformance(
      elements: 3,
      makePublisher: {
        StreamFedView(fresh: { StreamFeed(stateful: false, limit: 3, synchronous: true) }) {
          $0.valuePublisher.eraseToAnyPublisher()
        }
      }
    )
    .run()
    .expectAllPassed(skipping: ["SC-1.05", "SC-2.04"])
  }

  @Test func valueOnlyStream_passesEveryRule() {
    PublisherConformance(
      timeout: .seconds(5),
      makePublisher: {
        StreamFedView(shared: StreamFeed(stateful: false, limit: nil)) {
          $0.valueOnly().eraseToAnyPublisher()
        }
      }
    )
    .run()
    .expectAllPassed(skipping: ["SC-1.05", "SC-2.02", "SC-2.03", "SC-2.04", "SC-4.02"])
  }
}

/// A stream published from a background queue (or, if `synchronous`, inside `request`):
/// `supply` publishes one value per unit of demand (1,000 for unlimited) and, with a `limit`,
/// cancels the stream after that many values. A synchronous supply from inside `receive(_:)`
/// publishes re-entrantly, which the stream queues rather than nests.
final class StreamFeed: Sendable {
  let publisher: StreamPublisher<Int, StreamTestError>
  let stream: StreamSubscriber<Int, StreamTestError>
  private let queue = DispatchQueue(label: "StreamFeed")
  private let remaining: LockedState<(next: Int, left: Int?)>
  private let synchronous: Bool

  init(stateful: Bool, limit: Int?, synchronous: Bool = false) {
    publisher = stateful ? StatefulStreamPublisher() : StreamPublisher()
    stream = publisher.subscriber()
    remaining = LockedState((next: 0, left: limit))
    self.synchronous = synchronous
  }

  func supply(_ demand: Subscribers.Demand, isActive: @escaping @Sendable () -> Bool) {
    let count = demand.max ?? 1_000
    let work = { @Sendable [publisher, remaining] in
      for _ in 0..<count {
        guard isActive() else { return }
        let (value, isLast) = remaining.withLock { state -> (Int?, Bool) in
          if state.left == 0 { return (nil, false) }
          defer { state.next += 1 }
          state.left = state.left.map { $0 - 1 }
          return (state.next, state.left == 0)
        }
        guard let value else { return }
        publisher.publish(value)
        if isLast { publisher.cancelAll() }
      }
    }
    if synchronous { work() } else { queue.async(execute: work) }
  }

  func publishError(_ error: StreamTestError) {
    queue.async { [publisher] in publisher.publish(error) }
  }
}

/// A view of a fed stream: each subscriber is attached to `view(stream)` through a `Feeder`
/// that asks the feed for a value per unit of demand. `shared` attaches every subscriber to
/// one stream; `fresh` makes a stream per subscriber.
struct StreamFedView<Output, Failure: Error>: Publisher {
  private let shared: StreamFeed?
  private let makeFeed: (@Sendable () -> StreamFeed)?
  private let failure: StreamTestError?
  private let view:
    @Sendable (StreamSubscriber<Int, StreamTestError>) -> AnyPublisher<Output, Failure>

  init(
    shared: StreamFeed,
    view:
      @escaping @Sendable (StreamSubscriber<Int, StreamTestError>) -> AnyPublisher<Output, Failure>
  ) {
    self.shared = shared
    self.makeFeed = nil
    self.failure = nil
    self.view = view
  }

  init(
    fresh makeFeed: @escaping @Sendable () -> StreamFeed,
    failure: StreamTestError? = nil,
    view:
      @escaping @Sendable (StreamSubscriber<Int, StreamTestError>) -> AnyPublisher<Output, Failure>
  ) {
    self.shared = nil
    self.makeFeed = makeFeed
    self.failure = failure
    self.view = view
  }

  func receive<Downstream: Subscriber>(subscriber: Downstream)
  where Downstream.Input == Output, Downstream.Failure == Failure {
    guard let feed = shared ?? makeFeed?() else { return }
    view(feed.stream).subscribe(Feeder(downstream: subscriber, feed: feed))
    if let failure { feed.publishError(failure) }
  }

  // Sendable: `downstream` and `upstream` are guarded by `lock`; calls out happen after it.
  private final class Feeder<Downstream: Subscriber>: Subscriber, Subscription,
    @unchecked Sendable
  where Downstream.Input == Output, Downstream.Failure == Failure {
    private let lock = Lock()
    private var downstream: Downstream?
    private var upstream: (any Subscription)?
    private let feed: StreamFeed

    init(downstream: Downstream, feed: StreamFeed) {
      self.downstream = downstream
      self.feed = feed
    }

    func receive(subscription: any Subscription) {
      let downstream = lock.withLock {
        upstream = subscription
        return self.downstream
      }
      downstream?.receive(subscription: self)
    }

    func receive(_ input: Output) -> Subscribers.Demand {
      let downstream = lock.withLock { self.downstream }
      let more = downstream?.receive(input) ?? .none
      if more > .none { supply(more) }
      return more
    }

    func receive(completion: Subscribers.Completion<Failure>) {
      let (downstream, upstream) = take()
      _ = upstream
      downstream?.receive(completion: completion)
    }

    func request(_ demand: Subscribers.Demand) {
      let upstream = lock.withLock { self.upstream }
      upstream?.request(demand)
      supply(demand)
    }

    func cancel() {
      let (downstream, upstream) = take()
      _ = downstream
      upstream?.cancel()
    }

    private func supply(_ demand: Subscribers.Demand) {
      feed.supply(demand) { [weak self] in
        guard let self else { return false }
        return lock.withLock { self.upstream != nil }
      }
    }

    private func take() -> (Downstream?, (any Subscription)?) {
      lock.withLock {
        defer {
          downstream = nil
          upstream = nil
        }
        return (downstream, upstream)
      }
    }
  }
}
