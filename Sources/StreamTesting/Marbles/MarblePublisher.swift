public import StreamCore

/// A publisher that sends what a marble line says, on a ``TestScheduler``'s virtual time, and
/// logs when each subscriber subscribed, requested and cancelled.
///
/// ```swift
/// let scheduler = TestScheduler()
/// let input = scheduler.hot("-a--b-|")
/// let output = input.map { $0.uppercased() }
/// scheduler.expectMarbles(output, "-A--B-|")
/// input.subscriptionLines.map { $0.rendered() }  // ["(^*)"]
/// ```
///
/// Make one with ``TestScheduler/hot(_:)`` or ``TestScheduler/cold(_:)`` (and their
/// `values:` and `error:` forms):
///
/// - A **hot** publisher runs one timeline for everyone, from the instant it was made (or, with
///   `^`, from the instant it was made counting `^` as frame 0): a subscriber sees only what is
///   sent after it subscribed.
/// - A **cold** publisher starts the timeline again for each subscriber, from the instant it
///   subscribes: frame 0 is the subscription.
///
/// Values go out through a ``TestPublisher`` per timeline, so a value due while a subscriber has
/// no demand is not delivered to it and is listed in ``violations``. A line that does not parse
/// sends nothing; ``syntaxError`` says why, and the scheduler's marble expectations report it.
///
/// > Thread safety: Every method may be called from any thread. Events are sent on the thread
/// > that advances the scheduler, with no lock held.
// Sendable: the timeline and configuration are immutable; the log and the cold sources are
// behind `state`'s lock; subscribers are called outside it, by the `TestPublisher`s.
public final class MarblePublisher<Output, Failure: Error>: Publisher, @unchecked Sendable {
  private struct State {
    /// One list of timed calls per subscription, in order of subscription.
    var log: [[(time: VirtualTime, action: SubscriptionTimeline.Action)]] = []
    var coldSources: [TestPublisher<Output, Failure>] = []
  }

  /// The marble line as written.
  public let marbles: String

  /// Whether the publisher is hot (one shared timeline) rather than cold (one per subscriber).
  public let isHot: Bool

  /// The parsed line; empty when it did not parse.
  public let timeline: MarbleTimeline<Output, Failure>

  /// Why the line did not parse, or `nil` when it did.
  public let syntaxError: MarbleSyntaxError?

  /// The instant of frame 0: when a hot publisher was made (its `^`), and the origin of
  /// ``subscriptionLines``.
  public let origin: VirtualTime

  /// The length of one frame.
  public let frame: VirtualTime.Stride

  private let scheduler: VirtualTimeScheduler
  private let hotSource: TestPublisher<Output, Failure>?
  private let state = LockedState(State())

  init(
    marbles: String,
    values: [Character: Output],
    error: Failure?,
    isHot: Bool,
    scheduler: VirtualTimeScheduler
  ) {
    self.marbles = marbles
    self.isHot = isHot
    self.scheduler = scheduler
    origin = scheduler.now
    frame = scheduler.marbleFrame
    var timeline = MarbleTimeline<Output, Failure>(entries: [])
    var syntaxError: MarbleSyntaxError?
    do {
      timeline = try MarbleTimeline(parsing: marbles, values: values, error: error)
      if !isHot, timeline.hasSubscriptionPoint {
        syntaxError = MarbleSyntaxError(
          marbles,
          (marbles.firstIndex(of: "^").map { marbles.distance(from: marbles.startIndex, to: $0) }
            ?? 0)
            + 1,
          "a cold publisher has no subscription point `^`"
        )
        timeline = MarbleTimeline(entries: [])
      }
    } catch {
      syntaxError = error
    }
    self.timeline = timeline
    self.syntaxError = syntaxError
    hotSource = isHot ? TestPublisher() : nil
    scheduler.marbleRegistry.register(self)
    if let hotSource {
      // Before `^`: sent at once, before anyone can subscribe.
      for (index, entry) in timeline.entries.enumerated() where entry.frame < 0 {
        send(entryAt: index, to: hotSource)
      }
      schedule(timeline, on: hotSource, from: origin)
    }
  }

  /// Each subscription's calls, as subscription lines whose frame 0 is ``origin``, in order of
  /// subscription.
  ///
  /// ```swift
  /// #expect(input.subscriptionLines.map { $0.rendered() } == ["(^*)---!"])
  /// ```
  ///
  /// A call that falls between two frames is shown at the frame before it.
  public var subscriptionLines: [SubscriptionTimeline] {
    let log = state.withLock { $0.log }
    return log.map { calls in
      SubscriptionTimeline(
        entries: calls.map { call in
          .init(frame: frameIndex(of: call.time), action: call.action)
        }
      )
    }
  }

  /// What went against the demand contract: values due while a subscriber had no demand (not
  /// delivered to it), and `request(.none)` calls.
  public var violations: [String] {
    let sources = state.withLock { $0.coldSources }
    return ((hotSource.map { [$0] } ?? []) + sources).flatMap(\.violations)
  }

  /// Logs the subscription, then attaches `subscriber` to the shared timeline (hot) or starts
  /// a timeline for it (cold).
  ///
  /// > Thread safety: May be called from any thread.
  ///
  /// - Parameter subscriber: The subscriber to attach.
  public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
    let now = scheduler.now
    let index = state.withLock { state in
      state.log.append([(now, .subscribe)])
      return state.log.count - 1
    }
    let logged = LoggingSubscriber(downstream: subscriber, publisher: self, index: index)
    if let hotSource {
      hotSource.subscribe(logged)
      return
    }
    let source = TestPublisher<Output, Failure>()
    state.withLock { $0.coldSources.append(source) }
    source.subscribe(logged)
    schedule(timeline, on: source, from: now)
  }

  /// Logs a subscription's call at the current instant.
  fileprivate func record(_ action: SubscriptionTimeline.Action, subscription index: Int) {
    let now = scheduler.now
    state.withLock { $0.log[index].append((now, action)) }
  }

  private func schedule(
    _ timeline: MarbleTimeline<Output, Failure>,
    on source: TestPublisher<Output, Failure>,
    from start: VirtualTime
  ) {
    for (index, entry) in timeline.entries.enumerated() where entry.frame >= 0 {
      scheduler.schedule(after: start.advanced(by: frame * .init(entry.frame))) {
        self.send(entryAt: index, to: source)
      }
    }
  }

  private func send(entryAt index: Int, to source: TestPublisher<Output, Failure>) {
    switch timeline.entries[index].event {
    case .value(let value): source.send(value)
    case .completion(let completion): source.send(completion: completion)
    }
  }

  private func frameIndex(of time: VirtualTime) -> Int {
    MarbleClock(origin: origin, frame: frame).frame(of: time)
  }
}

extension MarblePublisher: MarbleInput {
  var summary: String {
    let kind = isHot ? "hot" : "cold"
    let lines = subscriptionLines.map { "\"\($0.rendered())\"" }
    let subscriptions = lines.isEmpty ? "never subscribed" : lines.joined(separator: ", ")
    var text = "\(kind) \"\(marbles)\": subscriptions \(subscriptions)"
    let violations = self.violations
    if !violations.isEmpty {
      text += "; violations: " + violations.joined(separator: "; ")
    }
    return text
  }
}

/// Converts between virtual instants and frames.
struct MarbleClock {
  var origin: VirtualTime
  var frame: VirtualTime.Stride

  /// The frame that `time` falls in (rounded down).
  func frame(of time: VirtualTime) -> Int {
    let ticks = origin.distance(to: time).magnitude
    let length = Swift.max(frame.magnitude, 1)
    let quotient = ticks / length
    return ticks % length < 0 ? quotient - 1 : quotient
  }

  /// The instant at which `frame` starts.
  func time(of frame: Int) -> VirtualTime {
    origin.advanced(by: self.frame * .init(frame))
  }
}

/// Passes everything through, handing downstream a subscription that logs its calls.
private final class LoggingSubscriber<Downstream: Subscriber, Output, Failure: Error>: Subscriber
where Downstream.Input == Output, Downstream.Failure == Failure {
  typealias Input = Output

  private let downstream: Downstream
  private let publisher: MarblePublisher<Output, Failure>
  private let index: Int

  init(downstream: Downstream, publisher: MarblePublisher<Output, Failure>, index: Int) {
    self.downstream = downstream
    self.publisher = publisher
    self.index = index
  }

  func receive(subscription: any Subscription) {
    downstream.receive(
      subscription: LoggedSubscription(base: subscription, publisher: publisher, index: index)
    )
  }

  func receive(_ input: Output) -> Subscribers.Demand {
    downstream.receive(input)
  }

  func receive(completion: Subscribers.Completion<Failure>) {
    downstream.receive(completion: completion)
  }
}

/// Logs each call with the current virtual instant, then makes it.
private final class LoggedSubscription<Output, Failure: Error>: Subscription,
  CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible
{
  private let base: any Subscription
  private let publisher: MarblePublisher<Output, Failure>
  private let index: Int

  init(base: any Subscription, publisher: MarblePublisher<Output, Failure>, index: Int) {
    self.base = base
    self.publisher = publisher
    self.index = index
  }

  var description: String { "MarblePublisher" }

  /// The `subscription` it logs and passes calls to, and its `index` among the publisher's
  /// subscriptions.
  var customMirror: Mirror {
    Mirror(self, children: ["subscription": base, "index": index])
  }

  var playgroundDescription: Any { description }

  func request(_ demand: Subscribers.Demand) {
    publisher.record(.request(demand), subscription: index)
    base.request(demand)
  }

  func cancel() {
    publisher.record(.cancel, subscription: index)
    base.cancel()
  }
}

/// What a scheduler's marble expectations need from the marble publishers made on it.
protocol MarbleInput: AnyObject, Sendable {
  /// One line describing the publisher, its subscriptions and any violations.
  var summary: String { get }

  var syntaxError: MarbleSyntaxError? { get }
}

/// The marble settings of one ``TestScheduler`` and the marble publishers made on it.
final class MarbleRegistry: Sendable {
  private struct Input {
    weak var input: (any MarbleInput)?
  }

  private struct State {
    var frameTicks = 1
    var inputs: [Input] = []
  }

  private let state = LockedState(State())

  var frameTicks: Int {
    get { state.withLock { $0.frameTicks } }
    set { state.withLock { $0.frameTicks = newValue } }
  }

  func register(_ input: any MarbleInput) {
    state.withLock { $0.inputs.append(Input(input: input)) }
  }

  /// The publishers still alive, in order of creation.
  var inputs: [any MarbleInput] {
    state.withLock { $0.inputs.compactMap(\.input) }
  }
}
