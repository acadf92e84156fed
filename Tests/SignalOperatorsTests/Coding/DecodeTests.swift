import Foundation
import SignalOperators
import StreamCore
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct DecodeTests {
  struct Point: Codable, Equatable {
    var x: Int
    var y: Int
  }

  let upstream = TestPublisher<Data, TestError>()

  @Test func json_decodesEachValue() {
    let recorder = RecordingSubscriber<Point, any Error>()
    upstream.decode(type: Point.self, decoder: JSONDecoder()).subscribe(recorder)
    upstream.send(Data(#"{"x":1,"y":2}"#.utf8))
    upstream.send(Data(#"{"x":3,"y":4}"#.utf8))
    #expect(recorder.values == [Point(x: 1, y: 2), Point(x: 3, y: 4)])
    #expect(recorder.completion == nil)
  }

  @Test func decodeFailure_failsWithDecodingErrorAndCancelsUpstream() {
    let recorder = RecordingSubscriber<Point, any Error>()
    upstream.decode(type: Point.self, decoder: JSONDecoder()).subscribe(recorder)
    upstream.send(Data(#"{"x":1,"y":2}"#.utf8))
    upstream.send(Data(#"{"x":"not a number"}"#.utf8))
    upstream.send(Data(#"{"x":5,"y":6}"#.utf8))
    #expect(recorder.values == [Point(x: 1, y: 2)])
    guard case .failure(let error) = recorder.completion else {
      Issue.record("expected a failure, got \(String(describing: recorder.completion))")
      return
    }
    #expect(error is DecodingError)
    #expect(upstream.requests == [.demand(.unlimited), .cancel])
    #expect(recorder.violations.isEmpty)
  }

  @Test func upstreamFailure_passesThroughAsAnyError() {
    let recorder = RecordingSubscriber<Point, any Error>()
    upstream.decode(type: Point.self, decoder: JSONDecoder()).subscribe(recorder)
    upstream.send(completion: .failure(TestError()))
    guard case .failure(let error) = recorder.completion else {
      Issue.record("expected a failure")
      return
    }
    #expect(error as? TestError == TestError())
  }

  @Test func upstreamFinished_passesThrough() {
    let recorder = RecordingSubscriber<Point, any Error>()
    upstream.decode(type: Point.self, decoder: JSONDecoder()).subscribe(recorder)
    upstream.send(Data(#"{"x":1,"y":2}"#.utf8))
    upstream.send(completion: .finished)
    #expect(recorder.values == [Point(x: 1, y: 2)])
    guard case .finished = recorder.completion else {
      Issue.record("expected .finished")
      return
    }
  }

  @Test func demand_passesThroughOneToOne() {
    let recorder = RecordingSubscriber<Point, any Error>(initialDemand: nil)
    upstream.decode(type: Point.self, decoder: JSONDecoder()).subscribe(recorder)
    #expect(upstream.requests.isEmpty)
    recorder.request(.max(1))
    upstream.send(Data(#"{"x":1,"y":2}"#.utf8))
    upstream.send(Data(#"{"x":3,"y":4}"#.utf8))
    #expect(recorder.values == [Point(x: 1, y: 2)])
    #expect(upstream.requests == [.demand(.max(1))])
  }

  @Test func cancelFromReceive_stopsDelivery() {
    let holder = LockedState<(any Subscription)?>(nil)
    let recorder = RecordingSubscriber<Point, any Error>(initialDemand: .unlimited) { _ in
      holder.withLock { $0 }?.cancel()
      return .none
    }
    upstream.decode(type: Point.self, decoder: JSONDecoder()).subscribe(recorder)
    holder.withLock { $0 = recorder.subscription }
    upstream.send(Data(#"{"x":1,"y":2}"#.utf8))
    upstream.send(Data(#"{"x":3,"y":4}"#.utf8))
    #expect(recorder.values == [Point(x: 1, y: 2)])
    #expect(upstream.requests == [.demand(.unlimited), .cancel])
  }

  @Test func subscription_describedAsDecode() {
    let recorder = RecordingSubscriber<Point, any Error>()
    upstream.decode(type: Point.self, decoder: JSONDecoder()).subscribe(recorder)
    #expect(recorder.subscriptionDescription == "Decode")
  }

  @Test func subscription_mirrorsDownstreamFinishedAndUpstream_andPlaysAsDecode() throws {
    // As Combine's: `downstream`, `finished`, `upstreamSubscription`.
    let recorder = RecordingSubscriber<Point, any Error>()
    upstream.decode(type: Point.self, decoder: JSONDecoder()).subscribe(recorder)
    let subscription = try #require(recorder.subscription)
    let mirror = Mirror(reflecting: subscription)
    #expect(mirror.children.map(\.label) == ["downstream", "finished", "upstreamSubscription"])
    #expect(Array(mirror.children)[1].value as? Bool == false)
    #expect(String(describing: Array(mirror.children)[2].value).contains("TestPublisher"))
    let playground = (subscription as? any CustomPlaygroundDisplayConvertible)?
      .playgroundDescription
    #expect(playground as? String == "Decode")
    recorder.cancel()
    #expect(Array(Mirror(reflecting: subscription).children)[1].value as? Bool == true)
  }

  @Test func inner_releasedAfterCancelAndAfterFailure() {
    weak var cancelled: AnyObject?
    weak var failed: AnyObject?
    do {
      let first = RecordingSubscriber<Point, any Error>()
      upstream.decode(type: Point.self, decoder: JSONDecoder()).subscribe(first)
      cancelled = first.subscription as AnyObject?
      first.cancel()
      let second = RecordingSubscriber<Point, any Error>()
      upstream.decode(type: Point.self, decoder: JSONDecoder()).subscribe(second)
      failed = second.subscription as AnyObject?
      upstream.send(Data("[]".utf8))
    }
    #expect(cancelled == nil)
    #expect(failed == nil)
  }

  @Test func requestNone_isPassedUpstream_asCombineDoes() {
    let upstream = TestPublisher<Data, Never>()
    let recorder = RecordingSubscriber<Int, any Error>(initialDemand: nil)
    upstream.decode(type: Int.self, decoder: JSONDecoder()).subscribe(recorder)
    recorder.subscription?.request(.none)
    #expect(upstream.requests == [.demand(.none)])
  }

  @Test func decode_conforms() {
    let items = [1, 2, 3].map { Data("\($0)".utf8) }
    PublisherConformance(
      elements: 3,
      makePublisher: {
        Record<Data, TestError>(output: items, completion: .finished)
          .decode(type: Int.self, decoder: JSONDecoder())
      },
      makeFailingPublisher: {
        Record<Data, TestError>(output: items, completion: .failure(TestError()))
          .decode(type: Int.self, decoder: JSONDecoder())
      }
    )
    .run()
    .expectAllPassed(skipping: ["SC-1.05"])
  }

  @Test func subscription_reflectsAsCombine() throws {
    // The differential oracle's `decode -`: as Combine's, the mirror shows `downstream`,
    // `finished` and `upstreamSubscription`, and the playground description is "Decode".
    let recorder = RecordingSubscriber<Point, any Error>(initialDemand: nil)
    upstream.decode(type: Point.self, decoder: JSONDecoder()).subscribe(recorder)
    let subscription = try #require(recorder.subscription)
    #expect(
      (subscription as? any CustomPlaygroundDisplayConvertible)?.playgroundDescription as? String
        == "Decode"
    )
    let mirror = Mirror(reflecting: subscription)
    #expect(mirror.children.map(\.label) == ["downstream", "finished", "upstreamSubscription"])
    #expect(mirror.children.map { "\($0.value)" }[1] == "false")
    #expect(mirror.children.map { "\($0.value)" }[2] != "nil")
    subscription.cancel()
    let ended = Mirror(reflecting: subscription).children.map { "\($0.label ?? "_"): \($0.value)" }
    #expect(ended == ["downstream: nil", "finished: true", "upstreamSubscription: nil"])
  }
}
