import StreamCore

/// The work behind `expectMarbles` and `expectsMarbles`: subscribe, run the scheduler, compare,
/// and explain a difference. The front ends only report the explanation.
enum MarbleExpectation {
  /// The most scheduler actions one expectation runs before it gives up.
  static let actionLimit = 100_000

  /// The most characters of a marble line that a failure message shows; a publisher that never
  /// settles can send one value per action.
  static let lineLimit = 200

  /// Runs `publisher` on `scheduler` as `demand` says and compares what it sends with
  /// `expected`.
  ///
  /// - Returns: `nil` if the publisher sent what was expected, else the failure message.
  static func evaluate<P: Publisher>(
    _ publisher: P,
    expected: String,
    values: [Character: P.Output],
    error: P.Failure?,
    demand: String?,
    scheduler: VirtualTimeScheduler
  ) -> String? where P.Output: Equatable {
    let expectedLine: MarbleTimeline<P.Output, P.Failure>
    let subscriberLine: SubscriptionTimeline
    do {
      expectedLine = try MarbleTimeline(parsing: expected, values: values, error: error)
      subscriberLine = try SubscriptionTimeline(parsing: demand ?? "(^*)")
    } catch {
      return "The marble expectation does not parse: \(error)"
    }
    if expectedLine.hasSubscriptionPoint {
      return "The expected marbles have no subscription point `^`: `\(expected)`"
    }
    let inputs = scheduler.marbleRegistry.inputs
    let problems = inputs.compactMap(\.syntaxError)
    guard problems.isEmpty else {
      return "A marble publisher's line does not parse: "
        + problems.map(\.description).joined(separator: "; ")
    }
    var actions = subscriberLine.entries
    if actions.first?.action != .subscribe {
      actions.insert(.init(frame: 0, action: .subscribe), at: 0)
    }
    let recorder = MarbleRecorder<P.Output, P.Failure>(scheduler: scheduler, initialDemand: nil)
    let clock = MarbleClock(origin: recorder.origin, frame: recorder.frame)
    // Each of the subscriber's calls comes first in its frame, before what is due then.
    for entry in actions {
      scheduler.advance(upTo: clock.time(of: entry.frame))
      switch entry.action {
      case .subscribe: publisher.subscribe(recorder)
      case .request(let demand): recorder.request(demand)
      case .cancel: recorder.cancel()
      }
    }
    let settled = scheduler.run(limit: actionLimit)
    if !settled { recorder.cancel() }

    var problemsFound: [String] = []
    if !settled {
      problemsFound.append(
        "The scheduler still had work after \(actionLimit) actions (a repeating timer?); "
          + "end it with a cancel `!` in the demand line"
      )
    }
    let difference = firstDifference(
      expected: expectedLine,
      actual: recorder.records,
      clock: clock,
      values: values
    )
    if let difference { problemsFound.append(difference) }
    let violations = recorder.violations
    if !violations.isEmpty {
      problemsFound.append(
        "The publisher broke the subscriber contract: " + violations.joined(separator: "; ")
      )
    }
    guard !problemsFound.isEmpty else { return nil }

    let frameText = recorder.frame == 1 ? "1 tick" : "\(recorder.frame.magnitude) ticks"
    var lines = [
      "Marbles differ (a frame is \(frameText); frame 0 is tick \(recorder.origin.ticks))"
    ]
    if demand != nil {
      lines.append("  demand:   " + subscriberLine.rendered())
    }
    lines.append("  expected: " + clipped(expectedLine.rendered(values: values)))
    lines.append("  actual:   " + clipped(recorder.rendered(values: values)))
    lines += problemsFound
    let summaries = inputs.map(\.summary)
    if !summaries.isEmpty {
      lines.append("Inputs:")
      lines += summaries.map { "  " + $0 }
    }
    return lines.joined(separator: "\n")
  }

  /// `line`, or its first ``lineLimit`` characters and how many more there are.
  static func clipped(_ line: String) -> String {
    guard line.count > lineLimit else { return line }
    return line.prefix(lineLimit) + "… (\(line.count - lineLimit) more characters)"
  }

  /// Describes the first place where `actual` differs from `expected`, or returns `nil`.
  private static func firstDifference<Output: Equatable, Failure: Error>(
    expected: MarbleTimeline<Output, Failure>,
    actual: [MarbleRecorder<Output, Failure>.Record],
    clock: MarbleClock,
    values: [Character: Output]
  ) -> String? {
    let count = Swift.max(expected.entries.count, actual.count)
    for index in 0..<count {
      let wanted = index < expected.entries.count ? expected.entries[index] : nil
      let got = index < actual.count ? actual[index] : nil
      if let wanted, let got, clock.time(of: wanted.frame) == got.time,
        matches(wanted.event, got.event)
      {
        continue
      }
      let wantedText =
        wanted.map { "\(describe($0.event, values)) at frame \($0.frame)" } ?? "nothing more"
      let gotText =
        got.map { "\(describe($0.event, values)) at \(describe($0.time, clock))" } ?? "nothing more"
      return "Event \(index + 1): expected \(wantedText), got \(gotText)"
    }
    return nil
  }

  private static func matches<Output: Equatable, Failure: Error>(
    _ lhs: MarbleTimeline<Output, Failure>.Event,
    _ rhs: MarbleTimeline<Output, Failure>.Event
  ) -> Bool {
    switch (lhs, rhs) {
    case (.value(let left), .value(let right)): left == right
    case (.completion(.finished), .completion(.finished)): true
    case (.completion(.failure(let left)), .completion(.failure(let right))): sameError(left, right)
    default: false
    }
  }

  /// Equal errors: `==` when they are `Equatable`, else the same reflection.
  static func sameError(_ lhs: any Error, _ rhs: any Error) -> Bool {
    if let lhs = equatable(lhs) {
      return isEqual(lhs, rhs)
    }
    return String(reflecting: lhs) == String(reflecting: rhs)
  }

  /// The value as `any Equatable`, if its dynamic type is; generic, so that the cast looks at
  /// the type inside an existential.
  private static func equatable<T>(_ value: T) -> (any Equatable)? {
    value as? any Equatable
  }

  private static func isEqual<T: Equatable>(_ lhs: T, _ rhs: Any) -> Bool {
    (rhs as? T) == lhs
  }

  private static func describe<Output: Equatable, Failure: Error>(
    _ event: MarbleTimeline<Output, Failure>.Event,
    _ values: [Character: Output]
  ) -> String {
    switch event {
    case .value(let value):
      "value \(MarbleLexer.symbol(for: value, in: values)) (\(String(reflecting: value)))"
    case .completion(.finished):
      "finished |"
    case .completion(.failure(let error)):
      "failure # (\(String(reflecting: error)))"
    }
  }

  private static func describe(_ time: VirtualTime, _ clock: MarbleClock) -> String {
    let frame = clock.frame(of: time)
    guard clock.time(of: frame) != time else { return "frame \(frame)" }
    return "tick \(time.ticks), between frames \(frame) and \(frame + 1)"
  }
}
