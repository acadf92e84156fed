import SignalOperators
import StreamCombineExt
import StreamConbini
import StreamCore
import StreamPropagate
import StreamSnail
import StreamSwiftySignals
import StreamTesting

/// One operator's marble diagram: its inputs as written and its output as the operator made it.
struct Diagram {
  /// Names the SVG file: `Docs/Diagrams/<slug>.svg`.
  var slug: String
  /// The call the diagram shows, such as `debounce(for: 3, scheduler:)`.
  var title: String
  /// The section of `Docs/SignalOperators.md` it goes in.
  var section: String
  /// Labelled lines, inputs first, the output last.
  var lines: [(label: String, marbles: String)]
}

/// Runs `publisher` on `scheduler` until nothing is left and renders what it sent.
private func output<P: Publisher>(
  _ publisher: P,
  on scheduler: VirtualTimeScheduler,
  values: [Character: P.Output] = [:]
) -> String where P.Output: Equatable {
  let recorder = MarbleRecorder<P.Output, P.Failure>(scheduler: scheduler)
  publisher.subscribe(recorder)
  scheduler.run()
  return recorder.rendered(values: values)
}

/// Runs `publisher` like ``output(_:on:values:)`` and names each distinct value with a letter
/// of `names`, in the order they arrive: the output line and a legend line such as
/// `x = (a, 1), y = (b, 1)`.
private func namedOutput<P: Publisher>(
  _ publisher: P,
  on scheduler: VirtualTimeScheduler,
  names: String = "xyzwuv",
  describe: (P.Output) -> String
) -> [(String, String)] where P.Output: Equatable {
  let recorder = MarbleRecorder<P.Output, P.Failure>(scheduler: scheduler)
  publisher.subscribe(recorder)
  scheduler.run()
  var seen: [P.Output] = []
  for record in recorder.records {
    if case .value(let value) = record.event, !seen.contains(value) { seen.append(value) }
  }
  precondition(seen.count <= names.count, "MarbleDiagrams: more values than names")
  let symbols = Array(names)
  let values = Dictionary(uniqueKeysWithValues: seen.indices.map { (symbols[$0], seen[$0]) })
  let legend = seen.indices.map { "\(symbols[$0]) = \(describe(seen[$0]))" }
  return [("output", recorder.rendered(values: values)), ("", legend.joined(separator: ", "))]
}

private struct Offline: Error, Equatable {}

/// Every diagram, made by running its operator through the marble kit. A frame is one tick, so
/// an operator's stride of 3 is three frames.
func makeDiagrams() -> [Diagram] {
  var diagrams: [Diagram] = []
  func add(
    _ slug: String,
    _ title: String,
    _ section: String,
    _ make: (VirtualTimeScheduler) -> [(String, String)]
  ) {
    diagrams.append(
      Diagram(slug: slug, title: title, section: section, lines: make(TestScheduler()))
    )
  }

  add("debounce", "debounce(for: 3, scheduler:)", "time") { s in
    let input = s.hot("-ab----c-d----|")
    return [
      ("input", input.marbles), ("output", output(input.debounce(for: 3, scheduler: s), on: s)),
    ]
  }
  add("throttle-latest", "throttle(for: 4, scheduler:, latest: true)", "time") { s in
    let input = s.hot("-abc----d-e--|")
    let result = input.throttle(for: 4, scheduler: s, latest: true)
    return [("input", input.marbles), ("output", output(result, on: s))]
  }
  add("throttle-first", "throttle(for: 4, scheduler:, latest: false)", "time") { s in
    let input = s.hot("-abc----d-e--|")
    let result = input.throttle(for: 4, scheduler: s, latest: false)
    return [("input", input.marbles), ("output", output(result, on: s))]
  }
  add("delay", "delay(for: 3, scheduler:)", "time") { s in
    let input = s.hot("-a-b--c|")
    return [("input", input.marbles), ("output", output(input.delay(for: 3, scheduler: s), on: s))]
  }
  add("timeout", "timeout(4, scheduler:, customError: { Offline() })", "time") { s in
    let input = s.hot("-a--b-------c-|", error: Offline())
    let result = input.timeout(4, scheduler: s) { Offline() }
    return [("input", input.marbles), ("output", output(result, on: s))]
  }
  add("collect-by-time", "collect(.byTime(scheduler, 4))", "time") { s in
    let input = s.hot("-ab---c-----d-|")
    let result = input.collect(.byTime(s, 4)).map { $0.joined() }
    return [
      ("input", input.marbles),
      ("output", output(result, on: s, values: ["x": "ab", "y": "c", "z": "d"])),
      ("", "x = [a, b], y = [c], z = [d]"),
    ]
  }
  add("timeout-finish", "timeout(4, scheduler:)", "time") { s in
    let input = s.hot("-a--b-------c-|", error: Offline())
    let result = input.timeout(4, scheduler: s)
    return [("input", input.marbles), ("output", output(result, on: s))]
  }
  add("collect-by-time-or-count", "collect(.byTimeOrCount(scheduler, 4, 2))", "time") { s in
    let input = s.hot("-abc--d----e--|")
    let result = input.collect(.byTimeOrCount(s, 4, 2))
    return [("input", input.marbles)]
      + namedOutput(result, on: s) { "[" + $0.joined(separator: ", ") + "]" }
  }
  add("measure-interval", "measureInterval(using: scheduler)", "time") { s in
    let input = s.hot("-a--b-c---d|")
    let result = input.measureInterval(using: s).map { String($0.magnitude) }
    return [
      ("input", input.marbles), ("output", output(result, on: s)),
      ("", "each value: the ticks since the previous one (the first: since subscription)"),
    ]
  }
  add("merge", "merge(with:)", "combining") { s in
    let left = s.hot("-a---b-|")
    let right = s.hot("--1---2--|")
    return [
      ("left", left.marbles), ("right", right.marbles),
      ("output", output(left.merge(with: right), on: s)),
    ]
  }
  add("combine-latest", "combineLatest(_:)", "combining") { s in
    let left = s.hot("-a---b---|")
    let right = s.hot("---1---2-|")
    let result = left.combineLatest(right).map { $0 + $1 }
    return [
      ("left", left.marbles), ("right", right.marbles),
      ("output", output(result, on: s, values: ["x": "a1", "y": "b1", "z": "b2"])),
      ("", "x = (a, 1), y = (b, 1), z = (b, 2)"),
    ]
  }
  add("zip", "zip(_:)", "combining") { s in
    let left = s.hot("-a--b--c|")
    let right = s.hot("---1---2|")
    let result = left.zip(right).map { $0 + $1 }
    return [
      ("left", left.marbles), ("right", right.marbles),
      ("output", output(result, on: s, values: ["x": "a1", "y": "b2"])),
      ("", "x = (a, 1), y = (b, 2)"),
    ]
  }
  add("combine-latest-3", "combineLatest(_:_:)", "combining") { s in
    let first = s.hot("-a----b---|")
    let second = s.hot("--1-----2-|")
    let third = s.hot("---A---B--|")
    let result = first.combineLatest(second, third).map { $0 + $1 + $2 }
    return [("first", first.marbles), ("second", second.marbles), ("third", third.marbles)]
      + namedOutput(result, on: s) { "(" + $0.map(String.init).joined(separator: ", ") + ")" }
  }
  add("zip-3", "zip(_:_:)", "combining") { s in
    let first = s.hot("-a-b---c|")
    let second = s.hot("--1---2-|")
    let third = s.hot("---A-B---|")
    let result = first.zip(second, third).map { $0 + $1 + $2 }
    return [("first", first.marbles), ("second", second.marbles), ("third", third.marbles)]
      + namedOutput(result, on: s) { "(" + $0.map(String.init).joined(separator: ", ") + ")" }
  }
  add("append-publisher", "append(suffix)", "combining") { s in
    let input = s.hot("-a-b|")
    let suffix = s.cold("-1-2|")
    return [
      ("input", input.marbles), ("suffix", suffix.marbles),
      ("output", output(input.append(suffix), on: s)),
    ]
  }
  add("prepend-publisher", "prepend(prefix)", "combining") { s in
    let input = s.hot("--1--2--3|")
    let prefix = s.cold("-a-b|")
    return [
      ("input", input.marbles), ("prefix", prefix.marbles),
      ("output", output(input.prepend(prefix), on: s)),
    ]
  }
  add("flat-map", "flatMap { $0 }", "combining") { s in
    let x = s.cold("-a--b|")
    let y = s.cold("-c---d|")
    let outer = s.hot("-x--y-----|", values: ["x": x, "y": y])
    return [
      ("outer", outer.marbles), ("x", x.marbles), ("y", y.marbles),
      ("output", output(outer.flatMap { $0 }, on: s)),
    ]
  }
  add("flat-map-max-1", "flatMap(maxPublishers: .max(1)) { $0 }", "combining") { s in
    let x = s.cold("-a--b|")
    let y = s.cold("-c-d|")
    let outer = [x, y].publisher
    return [
      ("outer", "(xy|)"), ("x", x.marbles), ("y", y.marbles),
      ("output", output(outer.flatMap(maxPublishers: .max(1)) { $0 }, on: s)),
      ("", "outer = [x, y].publisher: it sends y only when flatMap asks for it"),
    ]
  }
  add("switch-to-latest", "switchToLatest()", "combining") { s in
    let x = s.cold("-a-b-c|")
    let y = s.cold("-d-e|")
    let outer = s.hot("-x---y-----|", values: ["x": x, "y": y])
    return [
      ("outer", outer.marbles), ("x", x.marbles), ("y", y.marbles),
      ("output", output(outer.switchToLatest(), on: s)),
    ]
  }
  add("retry", "retry(1)", "errors") { s in
    let input = s.cold("-a-#", error: Offline())
    return [("input", input.marbles), ("output", output(input.retry(1), on: s))]
  }
  add("catch", "catch { _ in fallback }", "errors") { s in
    let input = s.hot("-a-b-#", error: Offline())
    let fallback = s.cold("-1-2|")
    let result = input.catch { _ in fallback }
    return [
      ("input", input.marbles), ("fallback", fallback.marbles), ("output", output(result, on: s)),
    ]
  }
  add("try-catch", "tryCatch { _ in fallback }", "errors") { s in
    let input = s.hot("-a-b-#", error: Offline())
    let fallback = s.cold("-1-2|")
    let result = input.tryCatch { _ in fallback }
    return [
      ("input", input.marbles), ("fallback", fallback.marbles), ("output", output(result, on: s)),
    ]
  }
  add("replace-error", "replaceError(with: \"z\")", "filtering") { s in
    let input = s.hot("-a-b-#", error: Offline())
    return [
      ("input", input.marbles), ("output", output(input.replaceError(with: "z"), on: s)),
    ]
  }
  add("drop-until-output", "drop(untilOutputFrom: trigger)", "selecting") { s in
    let input = s.hot("-a-b-c-d|")
    let trigger = s.hot("----t-----|")
    return [
      ("input", input.marbles), ("trigger", trigger.marbles),
      ("output", output(input.drop(untilOutputFrom: trigger), on: s)),
    ]
  }
  add("prefix-until-output", "prefix(untilOutputFrom: trigger)", "selecting") { s in
    let input = s.hot("-a-b-c-d|")
    let trigger = s.hot("----t-----|")
    return [
      ("input", input.marbles), ("trigger", trigger.marbles),
      ("output", output(input.prefix(untilOutputFrom: trigger), on: s)),
    ]
  }
  add("sample", "sample(every: 3, scheduler:)", "seeds") { s in
    let input = s.hot("-ab--c-----d-|")
    let result = input.sample(every: 3, scheduler: s)
    return [("input", input.marbles), ("output", output(result, on: s))]
  }
  add("throttle-pause", "throttle(pause: .nanoseconds(4), scheduler:)", "seeds") { s in
    let input = s.hot("-abc----d-e--|")
    let result = input.throttle(pause: .nanoseconds(4), scheduler: s)
    return [("input", input.marbles), ("output", output(result, on: s))]
  }
  add("debounce-timeout", "debounce(timeout: .nanoseconds(3), scheduler:)", "seeds") { s in
    let input = s.hot("-ab----c-d|")
    let result = input.debounce(timeout: .nanoseconds(3), scheduler: s)
    return [("input", input.marbles), ("output", output(result, on: s))]
  }
  add("delayed-retry", "retry(on: scheduler, intervals: [2, 3])", "conbini") { s in
    let input = s.cold("-a-#", error: Offline())
    let intervals: [VirtualTime.Stride] = [2, 3]
    let result = input.retry(on: s, intervals: intervals)
    return [
      ("input", input.marbles), ("output", output(result, on: s)),
      ("", "intervals in ticks: the second try starts 2 after the first failure, the third 3"),
    ]
  }
  add("prefix-duration", "prefix(duration: 5, on: scheduler)", "combineext") { s in
    let input = s.hot("-a-b--c-|")
    let result = input.prefix(duration: 5, on: s)
    return [("input", input.marbles), ("output", output(result, on: s))]
  }
  add("with-latest-from", "withLatestFrom(other) { $0 + $1 }", "combineext") { s in
    let input = s.hot("-a---b---c-|")
    let other = s.hot("--1---2-3--|")
    let result = input.withLatestFrom(other) { $0 + $1 }
    return [("input", input.marbles), ("other", other.marbles)]
      + namedOutput(result, on: s) { "(\($0.first!), \($0.last!))" }
  }
  add("amb", "amb(other)", "combineext") { s in
    let input = s.hot("---a-b-|")
    let other = s.hot("--1-2--3|")
    return [
      ("input", input.marbles), ("other", other.marbles),
      ("output", output(input.amb(other), on: s)),
    ]
  }
  add("flat-map-latest", "flatMapLatest { $0 }", "combineext") { s in
    let x = s.cold("-a-b-c|")
    let y = s.cold("-d-e|")
    let outer = s.hot("-x---y-----|", values: ["x": x, "y": y])
    return [
      ("outer", outer.marbles), ("x", x.marbles), ("y", y.marbles),
      ("output", output(outer.flatMapLatest { $0 }, on: s)),
    ]
  }
  add("flat-map-first", "flatMapFirst { $0 }", "combineext") { s in
    let x = s.cold("-a-b|")
    let y = s.cold("-c-d|")
    let z = s.cold("-e-f|")
    let outer = s.hot("-x-y---z-----|", values: ["x": x, "y": y, "z": z])
    return [
      ("outer", outer.marbles), ("x", x.marbles), ("y", y.marbles), ("z", z.marbles),
      ("output", output(outer.flatMapFirst { $0 }, on: s)),
    ]
  }
  add("merge-many", "[first, second, third].merge()", "combineext") { s in
    let first = s.hot("-a----b|")
    let second = s.hot("--1----|")
    let third = s.hot("---A-B---|")
    let result = [first, second, third].merge()
    return [
      ("first", first.marbles), ("second", second.marbles), ("third", third.marbles),
      ("output", output(result, on: s)),
    ]
  }
  add("combine-latest-many", "[first, second, third].combineLatest()", "combineext") { s in
    let first = s.hot("-a----b---|")
    let second = s.hot("--1-----2-|")
    let third = s.hot("---A---B--|")
    let result = [first, second, third].combineLatest()
    return [("first", first.marbles), ("second", second.marbles), ("third", third.marbles)]
      + namedOutput(result, on: s) { "[" + $0.joined(separator: ", ") + "]" }
  }
  add("zip-many", "[first, second, third].zip()", "combineext") { s in
    let first = s.hot("-a-b---c|")
    let second = s.hot("--1---2-|")
    let third = s.hot("---A-B---|")
    let result = [first, second, third].zip()
    return [("first", first.marbles), ("second", second.marbles), ("third", third.marbles)]
      + namedOutput(result, on: s) { "[" + $0.joined(separator: ", ") + "]" }
  }
  add("retry-when", "retryWhen { failures in failures.prefix(3).map { _ in () } }", "combineext") {
    s in
    let input = s.cold("-a-#", error: Offline())
    let result = input.retryWhen { failures in failures.prefix(3).map { _ in () } }
    return [
      ("input", input.marbles), ("output", output(result, on: s)),
      ("", "the trigger's third value is also its last: its finish ends the output"),
    ]
  }
  add("flat-map-batches", "[first, second, third].flatMapBatches(of: 2)", "combineext") { s in
    let first = s.cold("-a|")
    let second = s.cold("---b|")
    let third = s.cold("-c|")
    let result = [first, second, third].flatMapBatches(of: 2)
    return [("first", first.marbles), ("second", second.marbles), ("third", third.marbles)]
      + namedOutput(result, on: s) { "[" + $0.joined(separator: ", ") + "]" }
  }
  return diagrams
}
