import StreamCore
import StreamTesting
import Testing

/// A recorder's events as short strings: `"sub"`, the value, `"fin"`, `"fail(<error>)"`, so
/// outputs and failures of any type compare alike.
func shortLog<Input, Failure>(_ recorder: RecordingSubscriber<Input, Failure>) -> [String] {
  recorder.events.map { event in
    switch event {
    case .subscription: "sub"
    case .value(let value): "\(value)"
    case .completion(.finished): "fin"
    case .completion(.failure(let error)): "fail(\(error))"
    }
  }
}

/// The scenarios every 1:1 or filtering operator goes through, driven by a `TestPublisher`.
///
/// `inputs` are sent in order; `expected` is what the operator publishes for them with unlimited
/// demand (as `shortLog` strings). `passThrough` says whether the subscriber gets the
/// upstream's own subscription (`"TestPublisher"`) or one of the operator's.
struct PassThroughScenarios<Input: Sendable, UpstreamFailure: Error, P: Publisher> {
  let make: (TestPublisher<Input, UpstreamFailure>) -> P
  let inputs: [Input]
  let expected: [String]
  let error: UpstreamFailure?
  let description: String

  /// Unlimited demand: everything arrives, then the completion.
  func basic(_ location: SourceLocation = #_sourceLocation) {
    let upstream = TestPublisher<Input, UpstreamFailure>()
    let recorder = RecordingSubscriber<P.Output, P.Failure>()
    make(upstream).subscribe(recorder)
    inputs.forEach(upstream.send)
    upstream.send(completion: .finished)
    #expect(shortLog(recorder) == ["sub"] + expected + ["fin"], sourceLocation: location)
    #expect(upstream.requests == [.demand(.unlimited)], sourceLocation: location)
    #expect(recorder.violations.isEmpty, sourceLocation: location)
    #expect(recorder.subscriptionDescription == description, sourceLocation: location)
  }

  /// No demand: nothing is requested upstream or delivered until the subscriber asks.
  func demandNone(_ location: SourceLocation = #_sourceLocation) {
    let upstream = TestPublisher<Input, UpstreamFailure>()
    let recorder = RecordingSubscriber<P.Output, P.Failure>(initialDemand: nil)
    make(upstream).subscribe(recorder)
    upstream.send(inputs[0])
    #expect(shortLog(recorder) == ["sub"], sourceLocation: location)
    #expect(upstream.requests.isEmpty, sourceLocation: location)
    recorder.request(.unlimited)
    #expect(upstream.requests == [.demand(.unlimited)], sourceLocation: location)
    inputs.forEach(upstream.send)
    #expect(shortLog(recorder) == ["sub"] + expected, sourceLocation: location)
  }

  /// Demand topped up from `receive`, one at a time: everything arrives, nothing beyond demand.
  func demandOneAtATime(_ location: SourceLocation = #_sourceLocation) {
    let upstream = TestPublisher<Input, UpstreamFailure>()
    let recorder = RecordingSubscriber<P.Output, P.Failure>(
      initialDemand: .max(1),
      demandPerValue: .max(1)
    )
    make(upstream).subscribe(recorder)
    inputs.forEach(upstream.send)
    upstream.send(completion: .finished)
    #expect(shortLog(recorder) == ["sub"] + expected + ["fin"], sourceLocation: location)
    #expect(upstream.requests == [.demand(.max(1))], sourceLocation: location)
    #expect(upstream.violations.isEmpty, sourceLocation: location)
    #expect(recorder.violations.isEmpty, sourceLocation: location)
  }

  /// `.max(1)` and no more: after the first published value the upstream has no demand left.
  func demandMaxOne(_ location: SourceLocation = #_sourceLocation) {
    let upstream = TestPublisher<Input, UpstreamFailure>()
    let recorder = RecordingSubscriber<P.Output, P.Failure>(initialDemand: .max(1))
    make(upstream).subscribe(recorder)
    inputs.forEach(upstream.send)
    #expect(shortLog(recorder) == ["sub", expected[0]], sourceLocation: location)
    #expect(upstream.outstandingDemand == .none, sourceLocation: location)
    #expect(recorder.violations.isEmpty, sourceLocation: location)
  }

  /// The upstream fails, before any value and after the values.
  func upstreamFails(_ location: SourceLocation = #_sourceLocation) {
    guard let error else { return }
    for sendValues in [false, true] {
      let upstream = TestPublisher<Input, UpstreamFailure>()
      let recorder = RecordingSubscriber<P.Output, P.Failure>()
      make(upstream).subscribe(recorder)
      if sendValues { inputs.forEach(upstream.send) }
      upstream.send(completion: .failure(error))
      let values = sendValues ? expected : []
      #expect(
        shortLog(recorder) == ["sub"] + values + ["fail(\(error))"],
        sourceLocation: location
      )
    }
  }

  /// The upstream finishes before any value.
  func finishesEmpty(_ location: SourceLocation = #_sourceLocation) {
    let upstream = TestPublisher<Input, UpstreamFailure>()
    let recorder = RecordingSubscriber<P.Output, P.Failure>()
    make(upstream).subscribe(recorder)
    upstream.send(completion: .finished)
    #expect(shortLog(recorder) == ["sub", "fin"], sourceLocation: location)
  }

  /// Cancel before any value, after values, and after the completion.
  func cancel(_ location: SourceLocation = #_sourceLocation) {
    let before = TestPublisher<Input, UpstreamFailure>()
    let first = RecordingSubscriber<P.Output, P.Failure>()
    make(before).subscribe(first)
    first.cancel()
    inputs.forEach(before.send)
    #expect(shortLog(first) == ["sub"], sourceLocation: location)
    #expect(before.requests == [.demand(.unlimited), .cancel], sourceLocation: location)

    let during = TestPublisher<Input, UpstreamFailure>()
    let second = RecordingSubscriber<P.Output, P.Failure>()
    make(during).subscribe(second)
    inputs.forEach(during.send)
    second.cancel()
    inputs.forEach(during.send)
    during.send(completion: .finished)
    #expect(shortLog(second) == ["sub"] + expected, sourceLocation: location)

    let after = TestPublisher<Input, UpstreamFailure>()
    let third = RecordingSubscriber<P.Output, P.Failure>()
    make(after).subscribe(third)
    after.send(completion: .finished)
    third.cancel()
    #expect(shortLog(third) == ["sub", "fin"], sourceLocation: location)
    #expect(third.violations.isEmpty, sourceLocation: location)
  }

  /// Cancel from inside `receive`: nothing arrives after the first value.
  func cancelFromReceive(_ location: SourceLocation = #_sourceLocation) {
    let upstream = TestPublisher<Input, UpstreamFailure>()
    let box = SubscriptionHolder()
    let recorder = RecordingSubscriber<P.Output, P.Failure>(initialDemand: .unlimited) { _ in
      box.subscription?.cancel()
      return .none
    }
    make(upstream).subscribe(recorder)
    box.subscription = recorder.subscription
    inputs.forEach(upstream.send)
    upstream.send(completion: .finished)
    #expect(shortLog(recorder) == ["sub", expected[0]], sourceLocation: location)
    #expect(upstream.requests.last == .cancel, sourceLocation: location)
    box.subscription = nil
  }

  /// Request from inside `receive`: the request reaches the upstream and values keep coming.
  func requestFromReceive(_ location: SourceLocation = #_sourceLocation) {
    let upstream = TestPublisher<Input, UpstreamFailure>()
    let box = RecorderHolder<P.Output, P.Failure>()
    let recorder = RecordingSubscriber<P.Output, P.Failure>(initialDemand: .max(1)) { _ in
      box.recorder?.request(.max(1))
      return .none
    }
    box.recorder = recorder
    make(upstream).subscribe(recorder)
    inputs.forEach(upstream.send)
    #expect(shortLog(recorder) == ["sub"] + expected, sourceLocation: location)
    #expect(upstream.requests.count == 1 + expected.count, sourceLocation: location)
    #expect(recorder.violations.isEmpty, sourceLocation: location)
    #expect(upstream.violations.isEmpty, sourceLocation: location)
    box.recorder = nil
  }

  /// The subscription the subscriber got is released once it is cancelled or completed.
  func subscriptionReleased(_ location: SourceLocation = #_sourceLocation) {
    for cancelIt in [false, true] {
      let upstream = TestPublisher<Input, UpstreamFailure>()
      let recorder = RecordingSubscriber<P.Output, P.Failure>()
      weak var subscription: AnyObject?
      do {
        make(upstream).subscribe(recorder)
        subscription = recorder.subscription as AnyObject?
        #expect(subscription != nil, sourceLocation: location)
      }
      if cancelIt { recorder.cancel() } else { upstream.send(completion: .finished) }
      #expect(subscription == nil, sourceLocation: location)
    }
  }

  func runAll(_ location: SourceLocation = #_sourceLocation) {
    basic(location)
    demandNone(location)
    demandOneAtATime(location)
    demandMaxOne(location)
    upstreamFails(location)
    finishesEmpty(location)
    cancel(location)
    cancelFromReceive(location)
    requestFromReceive(location)
    subscriptionReleased(location)
  }
}

/// Checks that the closure a test captured `token` in is released once the subscription ends
/// by cancellation and by completion: `subscribe` builds and subscribes the operator, keeping
/// no reference to the publisher.
func expectClosureReleased<Input, Failure: Error, Output, OutputFailure: Error>(
  _ subscribe: (
    TestPublisher<Input, Failure>, ReleaseToken, RecordingSubscriber<Output, OutputFailure>
  ) -> Void,
  sourceLocation: SourceLocation = #_sourceLocation
) {
  for cancelIt in [false, true] {
    let upstream = TestPublisher<Input, Failure>()
    let recorder = RecordingSubscriber<Output, OutputFailure>()
    weak var weakToken: ReleaseToken?
    do {
      let token = ReleaseToken()
      weakToken = token
      subscribe(upstream, token, recorder)
    }
    #expect(
      weakToken != nil,
      "the closure should be alive while subscribed",
      sourceLocation: sourceLocation
    )
    if cancelIt { recorder.cancel() } else { upstream.send(completion: .finished) }
    #expect(weakToken == nil, "the closure should be released", sourceLocation: sourceLocation)
  }
}

/// A publisher that notes the description of each subscriber it gets (an operator's `Inner`),
/// hands it an empty subscription and does nothing else.
// Sendable: `seen` is only reached under `lock`.
final class InnerSpy<Output, Failure: Error>: Publisher, @unchecked Sendable {
  private let lock = Lock()
  private var seen: [String] = []
  private var seenMirrors: [[String]?] = []

  var descriptions: [String] { lock.withLock { seen } }

  /// Each subscriber's custom mirror as `label: value` lines, `nil` for a subscriber that isn't
  /// `CustomReflectable` (Combine's pass-through subscribers all are).
  var mirrors: [[String]?] { lock.withLock { seenMirrors } }

  func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
    let description = String(describing: subscriber)
    let mirror = (subscriber as? any CustomReflectable).map {
      $0.customMirror.children.map { "\($0.label ?? "_"): \(String(describing: $0.value))" }
    }
    lock.withLock {
      seen.append(description)
      seenMirrors.append(mirror)
    }
    subscriber.receive(subscription: Subscriptions.empty)
  }
}

extension PassThroughScenarios {
  /// For the `try` operators: `inputs` are sent, then `failingInput`, whose closure call throws
  /// `TestError.thrown`, then `inputs` again and a completion. The upstream is cancelled, the
  /// error arrives once, nothing after it, and the subscription is released.
  func thrown(failingInput: Input, _ location: SourceLocation = #_sourceLocation) {
    let upstream = TestPublisher<Input, UpstreamFailure>()
    let recorder = RecordingSubscriber<P.Output, P.Failure>()
    weak var subscription: AnyObject?
    do {
      make(upstream).subscribe(recorder)
      subscription = recorder.subscription as AnyObject?
    }
    inputs.forEach(upstream.send)
    upstream.send(failingInput)
    inputs.forEach(upstream.send)
    upstream.send(completion: .finished)
    #expect(
      shortLog(recorder) == ["sub"] + expected + ["fail(\(TestError.thrown))"],
      sourceLocation: location
    )
    #expect(upstream.requests == [.demand(.unlimited), .cancel], sourceLocation: location)
    #expect(recorder.violations.isEmpty, sourceLocation: location)
    #expect(subscription == nil, sourceLocation: location)
  }
}
