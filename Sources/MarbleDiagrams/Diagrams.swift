import SignalOperators
import StreamCore
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
  add("flat-map", "flatMap { $0 }", "combining") { s in
    let x = s.cold("-a--b|")
    let y = s.cold("-c---d|")
    let outer = s.hot("-x--y-----|", values: ["x": x, "y": y])
    return [
      ("outer", outer.marbles), ("x", x.marbles), ("y", y.marbles),
      ("output", output(outer.flatMap { $0 }, on: s)),
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
  return diagrams
}
