import FutureKit
import StreamCombineExt
import StreamCore
import StreamPropagate
import StreamSnail
import StreamSwiftySignals
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct StreamPublisherViewTests {
  typealias State = StreamState<Int, StreamTestError>

  let publisher = StreamPublisher<Int, StreamTestError>()

  // Issue 15: every subscription has a description and a mirror.
  @Test func subscription_mirrorsDownstreamAndDemand() throws {
    let recorder = RecordingSubscriber<State, Never>(initialDemand: .max(2))
    publisher.subscriber().subscribe(recorder)
    let subscription = try #require(recorder.subscription)
    let playground = subscription as? any CustomPlaygroundDisplayConvertible
    #expect(playground?.playgroundDescription as? String == "StreamSubscriber")
    publisher.publish(1)
    let children = { Mirror(reflecting: subscription).children }
    #expect(children().map(\.label) == ["downstream", "demand"])
    #expect(children().first?.value as? RecordingSubscriber<State, Never> === recorder)
    #expect(Array(children())[1].value as? Subscribers.Demand == .max(1))
    subscription.cancel()
    #expect(children().map { String(describing: $0.value) } == ["nil", "max(0)"])
  }

  @Test func states_areValuesThenCancelledAndFinished() {
    let recorder = RecordingSubscriber<State, Never>()
    publisher.subscriber().subscribe(recorder)
    publisher.publish(1)
    publisher.publish(StreamTestError(1))
    publisher.cancelAll()
    #expect(
      recorder.events == [
        .subscription, .value(.data(1)), .value(.error(StreamTestError(1))), .value(.cancelled),
        .completion(.finished),
      ]
    )
    #expect(recorder.violations.isEmpty)
    #expect(recorder.subscriptionDescription == "StreamSubscriber")
  }

  @Test func subscription_keepsTheStreamAliveUntilCancelled() {
    let recorder = RecordingSubscriber<State, Never>()
    weak var weakStream: StreamSubscriber<Int, StreamTestError>?
    do {
      let stream = publisher.subscriber()
      weakStream = stream
      stream.subscribe(recorder)
    }
    #expect(weakStream != nil)
    publisher.publish(1)
    recorder.cancel()
    #expect(weakStream == nil)
    publisher.publish(2)
    #expect(recorder.values == [.data(1)])
  }

  @Test func plainStreamWithoutDemand_dropsStates() {
    let recorder = RecordingSubscriber<State, Never>(initialDemand: .max(1))
    publisher.subscriber().subscribe(recorder)
    publisher.publish(1)
    publisher.publish(2)
    recorder.request(.max(1))
    publisher.publish(3)
    #expect(recorder.values == [.data(1), .data(3)])
    #expect(recorder.violations.isEmpty)
  }

  @Test func statefulStreamWithoutDemand_keepsTheLatestForTheNextRequest() {
    let stateful = StatefulStreamPublisher<Int, StreamTestError>()
    stateful.publish(0)
    let recorder = RecordingSubscriber<State, Never>(initialDemand: nil)
    stateful.subscriber().subscribe(recorder)
    stateful.publish(1)
    stateful.publish(2)
    #expect(recorder.values.isEmpty)
    recorder.request(.max(1))
    #expect(recorder.values == [.data(2)])
    recorder.request(.max(1))
    stateful.publish(3)
    #expect(recorder.values == [.data(2), .data(3)])
  }

  @Test func newSubscriberToAStatefulStream_receivesTheReplayOnItsFirstDemand() {
    let stateful = StatefulStreamPublisher<Int, StreamTestError>()
    stateful.publish(5)
    let recorder = RecordingSubscriber<State, Never>()
    stateful.subscriber().subscribe(recorder)
    #expect(recorder.events == [.subscription, .value(.data(5))])
  }

  @Test func subscriberToACancelledStream_receivesCancelledAndFinishedAtOnce() {
    let stream = publisher.subscriber()
    stream.cancel()
    let recorder = RecordingSubscriber<State, Never>()
    stream.subscribe(recorder)
    #expect(recorder.events == [.subscription, .value(.cancelled), .completion(.finished)])
  }

  @Test func cancellationWithoutDemand_stillFinishes() {
    let recorder = RecordingSubscriber<State, Never>(initialDemand: nil)
    publisher.subscriber().subscribe(recorder)
    publisher.cancelAll()
    #expect(recorder.events == [.subscription, .completion(.finished)])
  }

  @Test func demandReturnedFromReceive_isHonouredWithoutRecursion() {
    let recorder = RecordingSubscriber<State, Never>(initialDemand: .max(1)) { state in
      state.value.map { $0 < 3 ? .max(1) : .none } ?? .none
    }
    publisher.subscriber().subscribe(recorder)
    for value in 1...5 { publisher.publish(value) }
    #expect(recorder.values == [.data(1), .data(2), .data(3)])
    #expect(recorder.violations.isEmpty)
  }

  @Test func requestFromInsideReceive_withSynchronousPublishing_doesNotRecurse() {
    // Each `receive` publishes the next value at once and returns a demand of one; the stateful
    // stream keeps the value until that demand arrives. Nested, 20,000 levels would overflow.
    let count = 20_000
    let publisher = StatefulStreamPublisher<Int, StreamTestError>()
    let recorder = RecordingSubscriber<Int, Never>(initialDemand: .max(1)) { value in
      if value < count { publisher.publish(value + 1) }
      return value < count ? .max(1) : .none
    }
    let stream = publisher.subscriber()
    stream.valuePublisher.subscribe(recorder)
    publisher.publish(1)
    #expect(recorder.values.count == count)
    #expect(recorder.values.last == count)
    #expect(recorder.violations.isEmpty)
  }

  @Test func cancelFromInsideReceive_stopsDelivery() {
    let holder = LockedState<(any Cancellable)?>(nil)
    let recorder = RecordingSubscriber<State, Never>(initialDemand: .unlimited) { _ in
      holder.withLock { $0 }?.cancel()
      return .none
    }
    holder.withLock { $0 = recorder }
    publisher.subscriber().subscribe(recorder)
    publisher.publish(1)
    publisher.publish(2)
    #expect(recorder.values == [.data(1)])
    #expect(recorder.violations.isEmpty)
  }

  @Test func valuePublisher_skipsErrorsAndFinishesOnCancellation() {
    let recorder = RecordingSubscriber<Int, Never>()
    let stream = publisher.subscriber()
    stream.valuePublisher.subscribe(recorder)
    publisher.publish(1)
    publisher.publish(StreamTestError(1))
    publisher.publish(2)
    publisher.cancelAll()
    #expect(
      recorder.events == [.subscription, .value(1), .value(2), .completion(.finished)]
    )
  }

  @Test func valuePublisherFailingOnError_failsAtTheFirstError() {
    let recorder = RecordingSubscriber<Int, StreamTestError>()
    let stream = publisher.subscriber()
    stream.valuePublisherFailingOnError.subscribe(recorder)
    publisher.publish(1)
    publisher.publish(StreamTestError(7))
    publisher.publish(2)
    #expect(
      recorder.events == [.subscription, .value(1), .completion(.failure(StreamTestError(7)))]
    )
    #expect(!stream.isCancelled)  // the stream itself goes on
  }

  @Test func valuePublisherFailingOnError_finishesOnCancellation() {
    let recorder = RecordingSubscriber<Int, StreamTestError>()
    publisher.subscriber().valuePublisherFailingOnError.subscribe(recorder)
    publisher.cancelAll()
    #expect(recorder.events == [.subscription, .completion(.finished)])
  }

  @Test func sink_receivesStatesAndCancellingTheTokenUnregisters() async {
    let stream = publisher.subscriber()
    let states = StreamLog<State>()
    let token = stream.sink { states.append($0) }
    publisher.publish(1)
    token.cancel()
    publisher.publish(2)
    #expect(await states.elements == [.data(1)])
    #expect(!stream.isCancelled)
  }

  @Test func subscriptionAndRecorder_areReleasedAfterCancel() {
    weak var weakRecorder: RecordingSubscriber<State, Never>?
    let stream = publisher.subscriber()
    do {
      let recorder = RecordingSubscriber<State, Never>()
      weakRecorder = recorder
      stream.subscribe(recorder)
      recorder.cancel()
    }
    #expect(weakRecorder == nil)
  }

  @Test func cancelWhileTheEndingWaits_releasesTheUndeliveredFailure() {
    let publisher = StreamPublisher<Int, TrackedStreamError>()
    let stream = publisher.subscriber()
    let subscriber = EndsThenCancels { publisher.publish($0) }
    weak var weakError: TrackedStreamError?
    do {
      let error = TrackedStreamError()
      weakError = error
      subscriber.pending = error
    }
    // The error arrives while the subscribing thread still holds the drain, so the failure waits;
    // the subscriber cancels before it goes, and keeps the subscription.
    stream.valuePublisherFailingOnError.subscribe(subscriber)
    #expect(subscriber.subscription != nil)
    #expect(subscriber.completions == 0)
    #expect(weakError == nil)
  }
}

/// An error with identity, so a test can check (through a weak reference) that it was released.
private final class TrackedStreamError: Error, Sendable {}

/// On subscription: publishes its pending error, then cancels, keeping the subscription.
// Sendable: used on the test's thread only.
private final class EndsThenCancels: Subscriber, @unchecked Sendable {
  typealias Input = Int
  typealias Failure = TrackedStreamError

  var pending: TrackedStreamError?
  private(set) var subscription: (any Subscription)?
  private(set) var completions = 0
  private let publish: (TrackedStreamError) -> Void

  init(publish: @escaping (TrackedStreamError) -> Void) {
    self.publish = publish
  }

  func receive(subscription: any Subscription) {
    self.subscription = subscription
    if let error = pending.take() { publish(error) }
    subscription.cancel()
  }

  func receive(_ input: Int) -> Subscribers.Demand { .none }

  func receive(completion: Subscribers.Completion<TrackedStreamError>) {
    completions += 1
  }
}
