// The oracle's self-test (issue 42): an oracle is only as good as the bug it can catch.
//
// 1. Planted bugs: each mutant of `StreamKitScenarios/Mutants.swift` is a real StreamKit operator
//    with one bug switched on at run time. The oracle runs its operator's scripts (the same ones
//    as the main run) with the bug on, and must report a new difference in the channel the bug
//    shows in. Mutant `none` puts the same subscriber in between with no bug, over the same
//    operators, and must report nothing new.
// 2. Planted traces: OpenCombine's trace of a script, changed by hand the way a bug would change
//    it, given to the comparison as StreamKit's; each must be new. Ten are the traces a review
//    fed the old oracle, all of which it classified as intended; one traps for another reason;
//    two are a review's of the hardened oracle (a cancel not passed on after the subscriber's
//    own cancel, a lost `print` line next to an intended one).

import DiffModel
import Foundation
import StreamKitScenarios

/// One planted trace: a script, and how a bug changes OpenCombine's trace of it.
struct PlantedTrace: Sendable {
  var summary: String
  var script: String
  var change: @Sendable ([String]) -> [String]
}

/// The trace without the `n`th (from 1) line that starts with `prefix`, and the line after it
/// when it starts with `andNext`.
func removing(
  _ n: Int,
  _ prefix: String,
  andNext: String? = nil
) -> @Sendable ([String]) -> [String] {
  { trace in
    var seen = 0
    var result: [String] = []
    var skipNext = false
    for line in trace {
      if skipNext, let andNext, line.hasPrefix(andNext) {
        skipNext = false
        continue
      }
      skipNext = false
      if line.hasPrefix(prefix) {
        seen += 1
        if seen == n {
          skipNext = true
          continue
        }
      }
      result.append(line)
    }
    return result
  }
}

/// The trace with `lines` inserted before the first line that starts with `prefix`.
func inserting(_ lines: [String], before prefix: String) -> @Sendable ([String]) -> [String] {
  { trace in
    guard let i = trace.firstIndex(where: { $0.hasPrefix(prefix) }) else { return trace }
    return Array(trace[..<i]) + lines + Array(trace[i...])
  }
}

/// The trace with `lines` inserted after the first line that starts with `prefix`.
func inserting(_ lines: [String], after prefix: String) -> @Sendable ([String]) -> [String] {
  { trace in
    guard let i = trace.firstIndex(where: { $0.hasPrefix(prefix) }) else { return trace }
    return Array(trace[...i]) + lines + Array(trace[(i + 1)...])
  }
}

/// The trace with each line `transform` changes changed, from the `from`th line on.
func changing(
  from: Int = 0,
  _ transform: @escaping @Sendable (String) -> String?
)
  -> @Sendable ([String]) -> [String]
{
  { trace in
    trace.enumerated().map { i, line in i >= from ? transform(line) ?? line : line }
  }
}

let plantedTraces: [PlantedTrace] = [
  .init(
    summary: "a lost value",
    script: "map u v0.1 v0.2 v0.3 f0",
    change: removing(2, "E down0.value", andNext: "E down0.return")
  ),
  .init(
    summary: "a wrong zip tuple",
    script: "zip u v0.1 v1.2 v0.3 v1.4",
    change: changing { $0 == "E down0.value (3, 4)" ? "E down0.value (3, 5)" : nil }
  ),
  .init(
    summary: "a spurious replaceEmpty value",
    script: "replaceEmpty u v0.1 f0",
    change: inserting(
      ["E down0.value 42", "E down0.return max(0)"],
      before: "E down0.finished"
    )
  ),
  .init(
    summary: "prefix(2) finishing after one value",
    script: "prefix(2) u v0.1 v0.2 v0.3",
    change: { trace in
      let early = inserting(["E up0.cancel", "E down0.finished"], after: "E down0.return")(trace)
      return removing(2, "E down0.value", andNext: "E down0.return")(early)
    }
  ),
  .init(
    summary: "replaceError never replacing",
    script: "replaceError u v0.1 e0.1",
    change: removing(1, "E down0.value 42", andNext: "E down0.return")
  ),
  .init(
    summary: "a downstream released while active",
    script: "map u v0.1 v0.2",
    change: { trace in
      guard let i = trace.firstIndex(where: { $0.hasPrefix("E down0.value") }) else { return trace }
      return changing(from: i) { line in
        line.hasPrefix("L ") ? line.replacingOccurrences(of: "down0=1", with: "down0=0") : nil
      }(trace)
    }
  ),
  .init(
    summary: "zip not forwarding a request",
    script: "zip 1 v0.1 v1.2 r0.1 v0.3 v1.4",
    change: removing(2, "E up1.request")
  ),
  .init(
    summary: "a missing print line",
    script: "print u v0.1 v0.2 v0.3",
    change: { trace in trace.filter { !$0.contains("receive value: (2)") } }
  ),
  .init(
    summary: "share dropping a live second subscriber",
    script: "share u A v0.1 v0.2",
    change: { trace in
      trace.filter { !$0.hasPrefix("E down1.value") && !$0.hasPrefix("E down1.return") }
    }
  ),
  .init(
    summary:
      "a subscriber's cancel not passed upstream (tryScan, whose I8 covers calls after the end)",
    script: "tryScan u v0.1 c0 v0.2",
    change: removing(1, "E up0.cancel")
  ),
  .init(
    summary: "print not logging the subscriber's cancel",
    script: "print u v0.1 c0",
    change: { trace in trace.filter { !$0.hasSuffix("receive cancel") } }
  ),
  .init(
    summary: "a trap for another reason (both sides trap)",
    script: "Just - r0.0",
    change: changing { line in
      line.hasPrefix("T trapped: ")
        ? "T trapped: Fatal error: Just: the upstream sent a value before its subscription" : nil
    }
  ),
  .init(
    summary: "drop(untilOutputFrom:) passing a value it should drop",
    script: "drop(untilOutputFrom:) u v0.1 v1.9 v0.2",
    change: inserting(["E down0.value 1", "E down0.return max(0)"], after: "E up0.value 1")
  ),
]

/// The scripts the main run gives `shape`.
func mainRunScripts(for shape: OperatorShape, seed: UInt64, count: Int) -> [Script] {
  (0..<shape.scripts(budget: count)).map { Generator.script(for: shape, seed: seed, index: $0) }
    + Generator.misbehaviourScripts(for: shape)
}

/// Runs both parts; prints a line per planted bug and trace; `true` when every one was caught
/// and mutant `none` showed nothing new.
func selfTest(seed: UInt64, scriptsPerOperator: Int) -> Bool {
  var caught = 0
  var escaped: [String] = []
  print("==== Planted bugs (seed \(seed), \(scriptsPerOperator) scripts per operator)")
  var operators: [String] = []
  for mutant in Mutants.all where !operators.contains(mutant.op) { operators.append(mutant.op) }
  for op in operators {
    guard let shape = StreamKitScenarios.Scenarios.operators.first(where: { $0.name == op }) else {
      escaped.append("no operator \(op)")
      continue
    }
    let scripts = mainRunScripts(for: shape, seed: seed, count: scriptsPerOperator)
    activeMutant = nil
    let openCombine = traces("opencombine", scripts)
    for mutant in [Mutants.none] + Mutants.all.filter({ $0.op == op }) {
      activeMutant = mutant.name
      let streamKit = traces("streamkit", scripts)
      var newGroups = Set<String>()
      var inChannel = 0
      var example: Finding?
      for (i, script) in scripts.enumerated() {
        for f in findings(script, streamKit[i], openCombine[i]) where f.expectation == nil {
          newGroups.insert(f.key)
          if f.difference.channel == mutant.channel {
            inChannel += 1
            if example == nil || f.script.steps.count < example!.script.steps.count { example = f }
          }
        }
      }
      let name = "\(mutant.name) (\(op))"
      if mutant.name == Mutants.none.name {
        let ok = newGroups.isEmpty
        print("\(ok ? "clean " : "DIRTY ") \(name): \(newGroups.count) new difference(s)")
        if !ok {
          escaped.append(name)
          for key in newGroups.sorted() { print("        \(key)") }
        }
        continue
      }
      if let example {
        caught += 1
        print(
          "caught \(name): \(inChannel) new finding(s) in \(newGroups.count) group(s); e.g. \(example.difference.signature) in '\(example.script.encoded)'"
        )
      } else {
        escaped.append(name)
        print(
          "MISSED \(name): \(mutant.summary); no new \(mutant.channel) difference (\(newGroups.count) new group(s) elsewhere)"
        )
      }
    }
  }
  activeMutant = nil

  print("\n==== Planted traces (OpenCombine's trace of a script, changed as a bug would)")
  let scripts = plantedTraces.map { Script(encoded: $0.script)! }
  let openCombine = traces("opencombine", scripts)
  for (i, planted) in plantedTraces.enumerated() {
    let changed = planted.change(openCombine[i])
    let found = findings(scripts[i], changed, openCombine[i])
    if changed == openCombine[i] {
      escaped.append("trace: \(planted.summary) (the change did nothing)")
      print("BROKEN \(planted.summary): the change left the trace as it was")
    } else if let f = found.first(where: { $0.expectation == nil }) {
      caught += 1
      print("caught \(planted.summary): \(f.difference.signature)")
    } else {
      escaped.append("trace: \(planted.summary)")
      let by = found.compactMap { $0.expectation?.id }.joined(separator: ", ")
      print("MISSED \(planted.summary): absorbed by \(by.isEmpty ? "nothing (no difference)" : by)")
    }
  }
  print("\n==== Planted concurrency bug: \(Mutants.concurrency.summary)")
  if compareConcurrency(mutant: Mutants.concurrency.name) {
    escaped.append("concurrency: \(Mutants.concurrency.name)")
  } else {
    caught += 1
  }

  print("\n==== Self-test: \(caught) caught, \(escaped.count) missed")
  for name in escaped { print("  missed: \(name)") }
  print(escaped.isEmpty ? "PASS" : "FAIL")
  flushOutput()
  return escaped.isEmpty
}

/// The concurrency properties of each library (a child process each, as the scenarios run), and
/// whether they agree; prints both side by side.
func compareConcurrency(mutant: String?) -> Bool {
  print("==== Concurrency properties\(mutant.map { " (mutant \($0))" } ?? "")")
  var same = true
  for check in StreamKitScenarios.ConcurrencyScenarios.checks.map(\.name) {
    same = compareConcurrency(check, mutant: mutant) && same
  }
  print(same ? "PASS" : "FAIL: the libraries differ")
  return same
}

/// One check of `compareConcurrency(mutant:)`, each library's in a process of its own.
func compareConcurrency(_ check: String, mutant: String?) -> Bool {
  func run(_ library: String) -> [String] {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    var environment = ProcessInfo.processInfo.environment
    environment["SWIFT_BACKTRACE"] = "enable=no"
    process.environment = environment
    process.standardError = FileHandle.nullDevice
    process.arguments =
      ["--concurrency-child", library, check]
      + (library == "streamkit" ? mutant.map { ["--mutant", $0] } ?? [] : [])
    let pipe = Pipe()
    process.standardOutput = pipe
    do { try process.run() } catch { fatalError("cannot run \(executable): \(error)") }
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    let text = String(decoding: data, as: UTF8.self)
    let lines = text.split(separator: "\n").map(String.init)
    return process.terminationStatus == 0
      ? lines : lines + ["exited with \(process.terminationStatus)"]
  }
  let streamKit = run("streamkit")
  let openCombine = run("opencombine")
  var same = streamKit.count == openCombine.count
  for i in 0..<max(streamKit.count, openCombine.count) {
    let a = i < streamKit.count ? streamKit[i] : "(nothing)"
    let b = i < openCombine.count ? openCombine[i] : "(nothing)"
    if a == b {
      print("    \(a)")
    } else {
      same = false
      print("!!  StreamKit:   \(a)\n    OpenCombine: \(b)")
    }
  }
  return same
}
