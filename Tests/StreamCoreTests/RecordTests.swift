import Foundation
import StreamCore
import Testing

@Suite(.timeLimit(.minutes(5))) struct RecordTests {
  @Test func unlimitedDemand_replaysOutputThenCompletion() {
    let recorder = Recorder<Int, TestError>()
    Record<Int, TestError>(output: [1, 2, 3], completion: .failure(TestError(code: 4)))
      .subscribe(recorder)
    #expect(
      recorder.events == [
        .subscription("[1, 2, 3]"), .value(1), .value(2), .value(3),
        .completion(.failure(TestError(code: 4))),
      ]
    )
  }

  @Test func recordClosure_recordsOutputAndCompletion() {
    let record = Record<Int, Never> { recording in
      recording.receive(1)
      recording.receive(2)
      recording.receive(completion: .finished)
    }
    #expect(record.recording.output == [1, 2])
    #expect(record.recording.completion == .finished)
    let recorder = Recorder<Int, Never>()
    record.subscribe(recorder)
    #expect(
      recorder.events == [.subscription("[1, 2]"), .value(1), .value(2), .completion(.finished)]
    )
  }

  @Test func recordClosureWithoutCompletion_finishes() {
    let record = Record<Int, TestError> { $0.receive(1) }
    #expect(record.recording.completion == .finished)
    let recorder = Recorder<Int, TestError>()
    record.subscribe(recorder)
    #expect(recorder.completions == [.finished])
  }

  @Test func emptyOutput_sendsEmptySubscriptionAndTheCompletionWithoutDemand() {
    let recorder = Recorder<Int, TestError>(initialDemand: nil)
    Record<Int, TestError>(output: [], completion: .failure(TestError())).subscribe(recorder)
    #expect(recorder.events == [.subscription("Empty"), .completion(.failure(TestError()))])
  }

  @Test func maxOneAtATime_replaysOnePerRequestAndCompletesAfterTheLast() {
    let recorder = Recorder<Int, Never>(initialDemand: .max(1))
    Record<Int, Never>(output: [1, 2], completion: .finished).subscribe(recorder)
    #expect(recorder.events == [.subscription("[1, 2]"), .value(1)])
    recorder.request(.max(1))
    #expect(
      recorder.events == [.subscription("[1, 2]"), .value(1), .value(2), .completion(.finished)]
    )
  }

  @Test func noDemand_sendsNothing() {
    let recorder = Recorder<Int, Never>(initialDemand: nil)
    Record<Int, Never>(output: [1, 2], completion: .finished).subscribe(recorder)
    #expect(recorder.events == [.subscription("[1, 2]")])
  }

  @Test func demandReturnedFromReceive_addsUp() {
    let recorder = Recorder<Int, Never>(
      initialDemand: .max(1),
      demandPerValue: { $0 == 1 ? .max(2) : .none }
    )
    Record<Int, Never>(output: Array(1...6), completion: .finished).subscribe(recorder)
    #expect(recorder.values == [1, 2, 3])
    #expect(recorder.completions.isEmpty)
  }

  @Test func requestFromInsideReceive_loopsInsteadOfRecursing() {
    let output = Array(0..<100_000)
    let subscriber = OneAtATime()
    Record<Int, Never>(output: output, completion: .finished).subscribe(subscriber)
    #expect(subscriber.count == 100_000)
    #expect(subscriber.finished)
  }

  @Test func cancelBeforeRequest_sendsNothing() {
    let recorder = Recorder<Int, Never>(initialDemand: nil)
    Record<Int, Never>(output: [1, 2], completion: .finished).subscribe(recorder)
    recorder.cancel()
    recorder.cancel()
    recorder.request(.unlimited)
    #expect(recorder.events == [.subscription("[1, 2]")])
  }

  @Test func cancelInsideReceive_stopsDelivery() {
    let recorder = Recorder<Int, Never>(
      onValue: { recorder, value in if value == 2 { recorder.cancel() } }
    )
    Record<Int, Never>(output: [1, 2, 3], completion: .finished).subscribe(recorder)
    #expect(recorder.events == [.subscription("[1, 2, 3]"), .value(1), .value(2)])
  }

  @Test func cancelInsideReceiveOfTheLastOutput_doesNotComplete() {
    let recorder = Recorder<Int, Never>(
      onValue: { recorder, value in if value == 2 { recorder.cancel() } }
    )
    Record<Int, Never>(output: [1, 2], completion: .finished).subscribe(recorder)
    #expect(recorder.completions.isEmpty)
  }

  @Test func eachSubscriber_getsTheWholeReplay() {
    let record = Record<Int, Never>(output: [1, 2], completion: .finished)
    let first = Recorder<Int, Never>()
    let second = Recorder<Int, Never>()
    record.subscribe(first)
    record.subscribe(second)
    #expect(first.values == [1, 2])
    #expect(second.values == [1, 2])
  }

  @Test func subscription_describesItselfAsItsOutputs() throws {
    // The differential oracle's `Record 1`: as Combine's, the subscription is described by the
    // recorded outputs, its mirror shows them and the completion; after a cancel it is
    // "Cancelled Events" and shows what it let go of as empty.
    let recorder = Recorder<Int, Never>(initialDemand: .max(1))
    Record<Int, Never>(output: [1, 2, 3], completion: .finished).subscribe(recorder)
    let subscription = try #require(recorder.subscription)
    #expect(recorder.values == [1])
    #expect(String(describing: subscription) == "[1, 2, 3]")
    #expect(
      (subscription as? any CustomPlaygroundDisplayConvertible)?.playgroundDescription as? String
        == "[1, 2, 3]"
    )
    let children = Mirror(reflecting: subscription).children.map {
      "\($0.label ?? "_"): \($0.value)"
    }
    #expect(children == ["sequence: [1, 2, 3]", "completion: finished"])
    subscription.cancel()
    #expect(String(describing: subscription) == "Cancelled Events")
    let ended = Mirror(reflecting: subscription).children.map { "\($0.label ?? "_"): \($0.value)" }
    #expect(ended == ["sequence: []", "completion: finished"])  // as Combine's
  }

  @Test func cancel_releasesTheSubscriber() {
    weak var weakRecorder: Recorder<Int, Never>?
    do {
      let recorder = Recorder<Int, Never>(initialDemand: .max(1))
      weakRecorder = recorder
      Record<Int, Never>(output: [1, 2], completion: .finished).subscribe(recorder)
      recorder.cancel()
    }
    #expect(weakRecorder == nil)
  }

  @Test func completion_releasesTheSubscriber() {
    weak var weakKeeper: Keeper?
    var subscription: (any Subscription)?
    do {
      let keeper = Keeper()
      weakKeeper = keeper
      Record<Int, Never>(output: [1, 2], completion: .finished).subscribe(keeper)
      #expect(keeper.values == [1, 2])
      subscription = keeper.subscription
    }
    #expect(subscription != nil)
    #expect(weakKeeper == nil)
  }

  @Test func recordingInitializers_setOutputAndCompletion() {
    let empty = Record<Int, TestError>.Recording()
    #expect(empty.output.isEmpty)
    #expect(empty.completion == .finished)
    let full = Record<Int, TestError>.Recording(output: [1])
    #expect(full.output == [1])
    #expect(full.completion == .finished)
    let record = Record(
      recording: Record<Int, TestError>.Recording(
        output: [2],
        completion: .failure(TestError())
      )
    )
    #expect(record.recording.output == [2])
    #expect(record.recording.completion == .failure(TestError()))
  }

  @Test func codableRecord_roundTripsThroughJSON() throws {
    let record = Record<Int, TestError>(output: [1, 2], completion: .failure(TestError(code: 8)))
    let data = try JSONEncoder().encode(record)
    let decoded = try JSONDecoder().decode(Record<Int, TestError>.self, from: data)
    #expect(decoded.recording.output == [1, 2])
    #expect(decoded.recording.completion == .failure(TestError(code: 8)))
    let recorder = Recorder<Int, TestError>()
    decoded.subscribe(recorder)
    #expect(
      recorder.events == [
        .subscription("[1, 2]"), .value(1), .value(2), .completion(.failure(TestError(code: 8))),
      ]
    )
  }

  @Test func codableRecording_roundTripsThroughJSON() throws {
    let recording = Record<String, TestError>.Recording(output: ["a"], completion: .finished)
    let data = try JSONEncoder().encode(recording)
    let json = try #require(String(data: data, encoding: .utf8))
    #expect(json.contains("\"output\":[\"a\"]"))
    let decoded = try JSONDecoder().decode(Record<String, TestError>.Recording.self, from: data)
    #expect(decoded.output == ["a"])
    #expect(decoded.completion == .finished)
  }

  @Test func encodeInto_writesAnEncodableOnlyRecording() throws {
    struct Reading: Encodable { let celsius: Int }
    struct Overheated: Error, Encodable { let limit: Int }
    let recording = Record<Reading, Overheated>.Recording(
      output: [Reading(celsius: 21)],
      completion: .failure(Overheated(limit: 90))
    )
    let data = try JSONEncoder().encode(EncodedInto(recording))
    let json = String(decoding: data, as: UTF8.self)
    #expect(json.contains("\"output\":[{\"celsius\":21}]"))
    #expect(json.contains("90"))
  }

  @Test func outputAfterCompletion_traps() async {
    let trap1 = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      var recording = Record<Int, Never>.Recording()
      recording.receive(completion: .finished)
      recording.receive(1)
    }
    expectTrap(trap1, "Record.Recording.receive(_:): an output was recorded after the completion")
  }

  @Test func secondCompletion_traps() async {
    let trap2 = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      var recording = Record<Int, Never>.Recording(output: [1])
      recording.receive(completion: .finished)
    }
    expectTrap(trap2, "Record.Recording.receive(completion:): a second completion was recorded")
  }

  @Test func outputIntoDecodedRecording_traps() async {
    let trap3 = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      let data = try JSONEncoder().encode(Record<Int, TestError>.Recording())
      var recording = try JSONDecoder().decode(Record<Int, TestError>.Recording.self, from: data)
      recording.receive(1)
    }
    expectTrap(trap3, "Record.Recording.receive(_:): an output was recorded after the completion")
  }

  @Test func requestNone_isIgnored_asCombineDoes() {
    let recorder = Recorder<Int, Never>(initialDemand: nil)
    Record<Int, Never>(output: [1, 2], completion: .finished).subscribe(recorder)
    recorder.request(.none)
    #expect(recorder.values.isEmpty)
    recorder.request(.max(1))
    #expect(recorder.values == [1])
  }
}

/// Requests one value at a time from inside `receive(_:)`, counting instead of recording.
private final class OneAtATime: Subscriber {
  typealias Input = Int
  typealias Failure = Never

  private var subscription: (any Subscription)?
  private(set) var count = 0
  private(set) var finished = false

  func receive(subscription: any Subscription) {
    self.subscription = subscription
    subscription.request(.max(1))
  }

  func receive(_ input: Int) -> Subscribers.Demand {
    count += 1
    subscription?.request(.max(1))
    return .none
  }

  func receive(completion: Subscribers.Completion<Never>) {
    finished = true
    subscription = nil
  }
}

/// Keeps its subscription after the completion, so a test can see whether the subscription
/// still holds on to it.
private final class Keeper: Subscriber {
  typealias Input = Int
  typealias Failure = Never

  private(set) var subscription: (any Subscription)?
  private(set) var values: [Int] = []

  func receive(subscription: any Subscription) {
    self.subscription = subscription
    subscription.request(.unlimited)
  }

  func receive(_ input: Int) -> Subscribers.Demand {
    values.append(input)
    return .none
  }

  func receive(completion: Subscribers.Completion<Never>) {}
}

/// Encodes a recording through `encode(into:)`, the way a caller of Combine's method would.
private struct EncodedInto<Output: Encodable, Failure: Error & Encodable>: Encodable {
  let recording: Record<Output, Failure>.Recording

  init(_ recording: Record<Output, Failure>.Recording) {
    self.recording = recording
  }

  func encode(to encoder: any Encoder) throws {
    try recording.encode(into: encoder)
  }
}
