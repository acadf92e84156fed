import SignalOperators
import StreamCore
import StreamTesting
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

@Suite(.timeLimit(.minutes(5))) struct BreakpointTests {

  let upstream = TestPublisher<Int, TestError>()

  @Test func closuresReturningFalse_passEventsThrough() {
    let seen = LockedState<[String]>([])
    let recorder = RecordingSubscriber<Int, TestError>()
    upstream.breakpoint(
      receiveSubscription: { _ in
        seen.withLock { $0.append("subscription") }
        return false
      },
      receiveOutput: { value in
        seen.withLock { $0.append("value \(value)") }
        return false
      },
      receiveCompletion: { _ in
        seen.withLock { $0.append("completion") }
        return false
      }
    )
    .subscribe(recorder)
    upstream.send(1)
    upstream.send(completion: .failure(TestError()))
    #expect(recorder.events == [.subscription, .value(1), .completion(.failure(TestError()))])
    #expect(seen.withLock { $0 } == ["subscription", "value 1", "completion"])
  }

  @Test func breakpointOnError_finishedPassesThrough() {
    let recorder = RecordingSubscriber<Int, TestError>()
    upstream.breakpointOnError().subscribe(recorder)
    upstream.send(1)
    upstream.send(completion: .finished)
    #expect(recorder.events == [.subscription, .value(1), .completion(.finished)])
  }

  @Test func outputClosureTrue_raisesSIGTRAP() async {
    await #expect(processExitsWith: .signal(SIGTRAP)) {
      let recorder = RecordingSubscriber<Int, Never>()
      [1, 2, 3].publisher.breakpoint(receiveOutput: { $0 == 2 }).subscribe(recorder)
    }
  }

  @Test func breakpointOnError_failureRaisesSIGTRAP() async {
    await #expect(processExitsWith: .signal(SIGTRAP)) {
      let recorder = RecordingSubscriber<Int, TestError>()
      Fail<Int, TestError>(error: TestError()).breakpointOnError()
        .subscribe(recorder)
    }
  }

  @Test func demand_passesThroughOneToOne() {
    let recorder = RecordingSubscriber<Int, TestError>(initialDemand: nil)
    upstream.breakpoint().subscribe(recorder)
    #expect(upstream.requests.isEmpty)
    recorder.request(.max(1))
    upstream.send(1)
    upstream.send(2)
    #expect(recorder.values == [1])
    #expect(upstream.requests == [.demand(.max(1))])
  }

  @Test func cancel_cancelsUpstreamAndStopsValues() {
    let recorder = RecordingSubscriber<Int, TestError>()
    upstream.breakpoint().subscribe(recorder)
    recorder.cancel()
    upstream.send(1)
    #expect(recorder.values.isEmpty)
    #expect(upstream.requests == [.demand(.unlimited), .cancel])
  }

  @Test func subscription_isTheUpstreams() {
    // As Combine's (oracle K123: `breakpoint -`): the downstream gets the upstream's own
    // subscription, so its description names the upstream.
    let recorder = RecordingSubscriber<Int, TestError>()
    upstream.breakpoint().subscribe(recorder)
    #expect(recorder.subscriptionDescription == "TestPublisher")
  }

  @Test func subscriber_describedAsBreakpoint_withNoChildren() throws {
    // As Combine's: the subscriber the upstream sees is `Breakpoint`, mirroring no children.
    let capture = SubscriberCapture()
    capture.breakpoint().subscribe(RecordingSubscriber<Int, Never>())
    let subscriber = try #require(capture.subscriber)
    #expect(String(describing: subscriber) == "Breakpoint")
    #expect(Mirror(reflecting: subscriber).children.isEmpty)
    let playground = (subscriber as? any CustomPlaygroundDisplayConvertible)?.playgroundDescription
    #expect(playground as? String == "Breakpoint")
  }

  @Test func inner_releasedAfterCancel() {
    weak var inner: AnyObject?
    do {
      let recorder = RecordingSubscriber<Int, TestError>()
      upstream.breakpoint().subscribe(recorder)
      inner = recorder.subscription as AnyObject?
      recorder.cancel()
    }
    #expect(inner == nil)
  }

  @Test func requestNone_traps() async {
    let trap1 = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      // The request goes straight to the upstream's subscription, which traps.
      let recorder = RecordingSubscriber<Int, Never>(initialDemand: nil)
      PassthroughSubject<Int, Never>().breakpoint().subscribe(recorder)
      recorder.subscription?.request(.none)
    }
    expectTrap(trap1, "request(.none): a subscriber must request a demand greater than zero")
  }

  @Test func cancelFromReceive_stopsDelivery() {
    let holder = LockedState<(any Subscription)?>(nil)
    let recorder = RecordingSubscriber<Int, TestError>(initialDemand: .unlimited) { _ in
      holder.withLock { $0 }?.cancel()
      return .none
    }
    upstream.breakpoint(receiveOutput: { _ in false }).subscribe(recorder)
    holder.withLock { $0 = recorder.subscription }
    upstream.send(1)
    upstream.send(2)
    #expect(recorder.values == [1])
    #expect(upstream.requests == [.demand(.unlimited), .cancel])
  }

  @Test func breakpoint_conforms() {
    PublisherConformance(
      elements: 3,
      makePublisher: {
        Record<Int, TestError>(output: [1, 2, 3], completion: .finished).breakpointOnError()
      },
      makeLongPublisher: {
        Record<Int, TestError>(output: Array(0..<1_000_000), completion: .finished)
          .breakpoint(receiveOutput: { $0 < 0 })
      }
    )
    .run()
    .expectAllPassed(skipping: ["SC-2.04"])
  }
}

/// A publisher that keeps the subscriber it is given, to look at it, and hands it an empty
/// subscription.
// Sendable: used on one thread only.
private final class SubscriberCapture: Publisher, @unchecked Sendable {
  typealias Output = Int
  typealias Failure = Never

  var subscriber: Any?

  func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == Never {
    self.subscriber = subscriber
    subscriber.receive(subscription: Subscriptions.empty)
  }
}
