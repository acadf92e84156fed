import Foundation
import SignalOperators
import StreamCore
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct EncodeTests {
  struct Point: Codable, Equatable {
    var x: Int
    var y: Int
  }

  let upstream = TestPublisher<Point, TestError>()

  @Test func jsonRoundTrip_givesBackTheValues() throws {
    let recorder = RecordingSubscriber<Point, any Error>()
    [Point(x: 1, y: 2), Point(x: 3, y: 4)].publisher
      .encode(encoder: JSONEncoder())
      .decode(type: Point.self, decoder: JSONDecoder())
      .subscribe(recorder)
    #expect(recorder.values == [Point(x: 1, y: 2), Point(x: 3, y: 4)])
    guard case .finished = recorder.completion else {
      Issue.record("expected .finished, got \(String(describing: recorder.completion))")
      return
    }
  }

  @Test func json_encodesEachValue() throws {
    let recorder = RecordingSubscriber<Data, any Error>()
    upstream.encode(encoder: JSONEncoder()).subscribe(recorder)
    upstream.send(Point(x: 5, y: 6))
    let decoded = try JSONDecoder().decode(Point.self, from: try #require(recorder.values.first))
    #expect(decoded == Point(x: 5, y: 6))
  }

  @Test func propertyList_roundTrip() {
    let recorder = RecordingSubscriber<Point, any Error>()
    Just(Point(x: 7, y: 8))
      .encode(encoder: PropertyListEncoder())
      .decode(type: Point.self, decoder: PropertyListDecoder())
      .subscribe(recorder)
    #expect(recorder.values == [Point(x: 7, y: 8)])
  }

  @Test func encoderThrows_failsAndCancelsUpstream() {
    let recorder = RecordingSubscriber<String, any Error>()
    upstream.encode(encoder: EncodeFailing()).subscribe(recorder)
    upstream.send(Point(x: 1, y: 1))
    upstream.send(Point(x: 2, y: 2))
    #expect(recorder.values.isEmpty)
    #expect((recorder.completion?.error as? EncodeFailing.Refused) != nil)
    #expect(upstream.requests == [.demand(.unlimited), .cancel])
    #expect(recorder.violations.isEmpty)
  }

  @Test func upstreamFailure_passesThroughAsAnyError() {
    let recorder = RecordingSubscriber<String, any Error>()
    upstream.encode(encoder: EncodeDescribing()).subscribe(recorder)
    upstream.send(Point(x: 1, y: 2))
    upstream.send(completion: .failure(TestError()))
    #expect(recorder.values == ["1,2"])
    #expect((recorder.completion?.error as? TestError) == TestError())
  }

  @Test func demand_passesThroughOneToOne() {
    let recorder = RecordingSubscriber<String, any Error>(initialDemand: nil)
    upstream.encode(encoder: EncodeDescribing()).subscribe(recorder)
    #expect(upstream.requests.isEmpty)
    recorder.request(.max(1))
    upstream.send(Point(x: 1, y: 2))
    upstream.send(Point(x: 3, y: 4))
    #expect(recorder.values == ["1,2"])
    #expect(upstream.requests == [.demand(.max(1))])
  }

  @Test func demandFromReceive_returnedUpstream() {
    let recorder = RecordingSubscriber<String, any Error>(
      initialDemand: .max(1),
      demandPerValue: .max(1)
    )
    upstream.encode(encoder: EncodeDescribing()).subscribe(recorder)
    upstream.send(Point(x: 1, y: 2))
    upstream.send(Point(x: 3, y: 4))
    #expect(recorder.values == ["1,2", "3,4"])
    #expect(upstream.outstandingDemand == .max(1))
  }

  @Test func cancel_cancelsUpstreamAndStopsValues() {
    let recorder = RecordingSubscriber<String, any Error>()
    upstream.encode(encoder: EncodeDescribing()).subscribe(recorder)
    recorder.cancel()
    upstream.send(Point(x: 1, y: 2))
    #expect(recorder.values.isEmpty)
    #expect(upstream.requests == [.demand(.unlimited), .cancel])
  }

  @Test func subscription_describedAsEncode() {
    let recorder = RecordingSubscriber<String, any Error>()
    upstream.encode(encoder: EncodeDescribing()).subscribe(recorder)
    #expect(recorder.subscriptionDescription == "Encode")
  }

  @Test func subscription_mirrorsDownstreamFinishedAndUpstream_andPlaysAsEncode() throws {
    // As Combine's: `downstream`, `finished`, `upstreamSubscription`.
    let recorder = RecordingSubscriber<String, any Error>()
    upstream.encode(encoder: EncodeDescribing()).subscribe(recorder)
    let subscription = try #require(recorder.subscription)
    let mirror = Mirror(reflecting: subscription)
    #expect(mirror.children.map(\.label) == ["downstream", "finished", "upstreamSubscription"])
    #expect(Array(mirror.children)[1].value as? Bool == false)
    #expect(String(describing: Array(mirror.children)[2].value).contains("TestPublisher"))
    let playground = (subscription as? any CustomPlaygroundDisplayConvertible)?
      .playgroundDescription
    #expect(playground as? String == "Encode")
    recorder.cancel()
    #expect(Array(Mirror(reflecting: subscription).children)[1].value as? Bool == true)
  }

  @Test func inner_releasedAfterCancelAndAfterFailure() {
    weak var cancelled: AnyObject?
    weak var failed: AnyObject?
    do {
      let first = RecordingSubscriber<String, any Error>()
      upstream.encode(encoder: EncodeDescribing()).subscribe(first)
      cancelled = first.subscription as AnyObject?
      first.cancel()
      let second = RecordingSubscriber<String, any Error>()
      upstream.encode(encoder: EncodeFailing()).subscribe(second)
      failed = second.subscription as AnyObject?
      upstream.send(Point(x: 0, y: 0))
    }
    #expect(cancelled == nil)
    #expect(failed == nil)
  }

  @Test func requestNone_isPassedUpstream_asCombineDoes() {
    let upstream = TestPublisher<Int, Never>()
    let recorder = RecordingSubscriber<String, any Error>(initialDemand: nil)
    upstream.encode(encoder: EncodeDescribing()).subscribe(recorder)
    recorder.subscription?.request(.none)
    #expect(upstream.requests == [.demand(.none)])
  }

  @Test func encode_conforms() {
    PublisherConformance(
      elements: 3,
      makePublisher: {
        Record<Int, TestError>(output: [1, 2, 3], completion: .finished)
          .encode(encoder: EncodeDescribing())
      },
      makeFailingPublisher: {
        Record<Int, TestError>(output: [1, 2, 3], completion: .failure(TestError()))
          .encode(encoder: EncodeDescribing())
      },
      makeLongPublisher: {
        Record<Int, TestError>(output: Array(0..<1_000_000), completion: .finished)
          .encode(encoder: EncodeDescribing())
      }
    )
    .run()
    .expectAllPassed()
  }

  @Test func subscription_reflectsAsCombine() throws {
    // The differential oracle's `encode -`: as Combine's, the mirror shows `downstream`,
    // `finished` and `upstreamSubscription`, and the playground description is "Encode".
    let recorder = RecordingSubscriber<Data, any Error>(initialDemand: nil)
    upstream.encode(encoder: JSONEncoder()).subscribe(recorder)
    let subscription = try #require(recorder.subscription)
    #expect(
      (subscription as? any CustomPlaygroundDisplayConvertible)?.playgroundDescription as? String
        == "Encode"
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

/// Writes `x,y` for a point and the description for anything else.
private struct EncodeDescribing: TopLevelEncoder, Sendable {
  func encode<T: Encodable>(_ value: T) throws -> String {
    if let point = value as? EncodeTests.Point { return "\(point.x),\(point.y)" }
    return String(describing: value)
  }
}

/// Refuses every value.
private struct EncodeFailing: TopLevelEncoder, Sendable {
  struct Refused: Error {}
  func encode<T: Encodable>(_ value: T) throws -> String { throw Refused() }
}

extension Subscribers.Completion {
  fileprivate var error: Failure? {
    if case .failure(let error) = self { return error }
    return nil
  }
}
