import SignalOperators
import StreamCore
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct MakeConnectableTests {
  let upstream = TestPublisher<Int, Never>()

  @Test func nothingFlows_untilConnected() {
    let connectable = upstream.makeConnectable()
    let recorder = RecordingSubscriber<Int, Never>()
    connectable.subscribe(recorder)
    #expect(upstream.subscriptionCount == 0)
    let connection = connectable.connect()
    upstream.send(1)
    upstream.send(completion: .finished)
    #expect(recorder.events == [.subscription, .value(1), .completion(.finished)])
    #expect(upstream.requests == [.demand(.unlimited)])
    connection.cancel()
  }

  @Test func sequenceUpstream_deliversToEverySubscriberOnConnect() {
    let connectable = [1, 2, 3].publisher.makeConnectable()
    let first = RecordingSubscriber<Int, Never>()
    let second = RecordingSubscriber<Int, Never>()
    connectable.subscribe(first)
    connectable.subscribe(second)
    #expect(first.values.isEmpty)
    let connection = connectable.connect()
    #expect(first.values == [1, 2, 3])
    #expect(second.values == [1, 2, 3])
    #expect(second.completion == .finished)
    connection.cancel()
  }

  // Differential oracle (issue 15), K191: `makeConnectable - C C`.
  @Test func copies_shareOneSubject_andEachConnectSubscribes() {
    let connectable = upstream.makeConnectable()
    let copy = connectable
    let recorder = RecordingSubscriber<Int, Never>()
    copy.subscribe(recorder)
    let connection = connectable.connect()
    let again = copy.connect()
    #expect(upstream.subscriptionCount == 2)
    again.cancel()
    upstream.send(5)
    #expect(recorder.values == [5])
    connection.cancel()
    #expect(upstream.requests == [.demand(.unlimited), .demand(.unlimited), .cancel, .cancel])
  }

  @Test func demandMaxOne_deliversOneThenMisses() {
    let connectable = upstream.makeConnectable()
    let recorder = RecordingSubscriber<Int, Never>(initialDemand: .max(1))
    connectable.subscribe(recorder)
    let connection = connectable.connect()
    upstream.send(1)
    upstream.send(2)
    #expect(recorder.values == [1])
    #expect(recorder.violations.isEmpty)
    connection.cancel()
  }

  @Test func cancelConnection_stopsValues() {
    let connectable = upstream.makeConnectable()
    let recorder = RecordingSubscriber<Int, Never>()
    connectable.subscribe(recorder)
    let connection = connectable.connect()
    connection.cancel()
    connection.cancel()
    upstream.send(1)
    #expect(recorder.values.isEmpty)
    #expect(upstream.requests == [.demand(.unlimited), .cancel])
  }

  @Test func subscription_describedAsMulticast() {
    let recorder = RecordingSubscriber<Int, Never>()
    upstream.makeConnectable().subscribe(recorder)
    #expect(recorder.subscriptionDescription == "Multicast")
  }

  @Test func autoconnectedMakeConnectable_conforms() {
    PublisherConformance(
      elements: 0,
      independentSubscriptions: false,
      makePublisher: { Empty<Int, Never>().makeConnectable().autoconnect() }
    )
    .run()
    .expectAllPassed(skipping: ["SC-1.05", "SC-2.04", "SC-3.01", "SC-3.02", "SC-5.01"])
  }
}
