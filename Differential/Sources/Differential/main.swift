// The differential oracle's driver. See Differential/README.md.
//
// Every scenario runs in a child process (this executable, re-run with `--child LIBRARY`, reading
// encoded scripts on standard input), so a scenario that traps ends only that child: the parent
// records the trap (and its message) and starts a new child at the next script.

import DiffModel
import Dispatch
import Foundation
import OpenCombineScenarios
import StreamKitScenarios

/// Flushes standard output (`fflush(nil)` flushes every stream, without naming the global `stdout`).
func flushOutput() { fflush(nil) }

// MARK: - Options

struct Options {
  var seed: UInt64 = 1
  var scriptsPerOperator = 300
  var operators: [String] = []
  var child: String?
  var script: String?
  var shrinkAll = false
  var verbose = false
  var list = false
  var maxReports = 40
  var emitKnown = false
  var mutant: String?
  var selfTest = false
  var listTraps = false
  var concurrency = false
  var concurrencyChild: String?
  var check: String?
}

func usage() -> Never {
  print(
    """
    Differential: runs scripted scenarios against StreamKit and OpenCombine and compares the traces.

    Usage: Differential [--seed S] [--scripts-per-operator N] [--operator NAME]... [--shrink-all]
                        [--max-reports N] [--verbose] [--list]
           Differential --script 'ENCODED SCRIPT'     run one script on both and show the traces

      --seed S                  the generator's seed (default 1)
      --scripts-per-operator N  random scripts per operator (default 300), plus the misbehaviour cases
      --operator NAME           only this operator (repeatable)
      --shrink-all              also shrink expected (intended or known) differences, one per kind
      --max-reports N           print at most N detailed reports (default 40)
      --verbose                 list every distinct difference, expected ones too
      --list                    list the operators
      --emit-known              print Swift entries for Known.swift covering every new difference
      --mutant NAME             run StreamKit with a planted bug (Mutants.swift; `none`: no bug)
      --concurrency             compare the concurrency properties (ConcurrencyScenarios.swift)
      --list-traps              list the traps each side's scenarios end in, with their meanings
      --self-test               run the oracle against every planted bug and planted trace; fail
                                unless each is reported as new (SelfTest.swift)
    """
  )
  exit(2)
}

func parseOptions() -> Options {
  var o = Options()
  var args = CommandLine.arguments.dropFirst()
  func value() -> String {
    guard let v = args.popFirst() else { usage() }
    return v
  }
  while let arg = args.popFirst() {
    switch arg {
    case "--seed": o.seed = UInt64(value()) ?? 0
    case "--scripts-per-operator": o.scriptsPerOperator = Int(value()) ?? 0
    case "--operator": o.operators.append(value())
    case "--child": o.child = value()
    case "--script": o.script = value()
    case "--shrink-all": o.shrinkAll = true
    case "--max-reports": o.maxReports = Int(value()) ?? 0
    case "--verbose": o.verbose = true
    case "--list": o.list = true
    case "--emit-known": o.emitKnown = true
    case "--mutant": o.mutant = value()
    case "--self-test": o.selfTest = true
    case "--list-traps": o.listTraps = true
    case "--concurrency": o.concurrency = true
    case "--concurrency-child":
      o.concurrencyChild = value()
      o.check = value()
    default: usage()
    }
  }
  return o
}

// MARK: - Child mode

func runChild(_ library: String, mutant: String?) -> Never {
  if let mutant {
    guard let planted = Mutants.named(mutant) else {
      print("no such mutant: \(mutant)")
      exit(2)
    }
    Mutants.active = planted
  }
  func run(_ script: Script, _ emit: @escaping (String) -> Void) -> Bool {
    library == "streamkit"
      ? StreamKitScenarios.Scenarios.run(script, emit: emit)
      : OpenCombineScenarios.Scenarios.run(script, emit: emit)
  }
  var index = 0
  while let line = readLine() {
    guard let script = Script(encoded: line) else {
      print("#BAD \(index)")
      index += 1
      continue
    }
    print("#BEGIN \(index)")
    flushOutput()
    let known = run(script) { line in
      print(line)
      flushOutput()
    }
    if !known { print("T unknown operator") }
    print("#END \(index)")
    flushOutput()
    index += 1
  }
  exit(0)
}

// MARK: - Running batches in children

let executable =
  Bundle.main.executablePath
  ?? URL(fileURLWithPath: CommandLine.arguments[0]).standardizedFileURL.path
let tempDirectory = FileManager.default.temporaryDirectory.appendingPathComponent(
  "differential-\(ProcessInfo.processInfo.processIdentifier)"
)
try? FileManager.default.createDirectory(at: tempDirectory, withIntermediateDirectories: true)
atexit { try? FileManager.default.removeItem(at: tempDirectory) }
nonisolated(unsafe) var childLaunches = 0
/// The planted bug StreamKit's children run with (`--mutant`, or the self-test's current one).
nonisolated(unsafe) var activeMutant: String?
let launchLock = NSLock()

/// The trace of each script in `library`, in a child process (restarted after each trap).
func traces(_ library: String, _ scripts: [Script]) -> [[String]] {
  var results = [[String]?](repeating: nil, count: scripts.count)
  var start = 0
  let tag = "\(library)-\(UUID().uuidString)"
  let inURL = tempDirectory.appendingPathComponent("\(tag).in")
  let outURL = tempDirectory.appendingPathComponent("\(tag).out")
  let errURL = tempDirectory.appendingPathComponent("\(tag).err")
  defer {
    for url in [inURL, outURL, errURL] { try? FileManager.default.removeItem(at: url) }
  }
  while start < scripts.count {
    let input = scripts[start...].map(\.encoded).joined(separator: "\n") + "\n"
    _ = FileManager.default.createFile(atPath: inURL.path, contents: Data(input.utf8))
    _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
    _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments =
      ["--child", library]
      + (library == "streamkit" ? activeMutant.map { ["--mutant", $0] } ?? [] : [])
    // No symbolicated backtrace on a trap: it takes about half a second per crash.
    var environment = ProcessInfo.processInfo.environment
    environment["SWIFT_BACKTRACE"] = "enable=no"
    // The same Set and Dictionary order in every run, so a seed always gives the same result.
    environment["SWIFT_DETERMINISTIC_HASHING"] = "1"
    process.environment = environment
    process.standardInput = try! FileHandle(forReadingFrom: inURL)
    process.standardOutput = try! FileHandle(forWritingTo: outURL)
    process.standardError = try! FileHandle(forWritingTo: errURL)
    launchLock.withLock { childLaunches += 1 }
    do { try process.run() } catch {
      fatalError("cannot run \(executable): \(error)")
    }
    process.waitUntilExit()
    let out = (try? String(contentsOf: outURL, encoding: .utf8)) ?? ""
    var current: Int?
    var lines: [String] = []
    var lastFinished = -1
    for line in out.split(separator: "\n", omittingEmptySubsequences: false) {
      if line.hasPrefix("#BEGIN ") {
        current = Int(line.dropFirst(7))
        lines = []
      } else if line.hasPrefix("#END ") {
        if let current {
          results[start + current] = lines
          lastFinished = current
        }
        current = nil
      } else if line.hasPrefix("#BAD ") {
        let i = Int(line.dropFirst(5))!
        results[start + i] = ["T bad script"]
        lastFinished = i
      } else if current != nil {
        lines.append(String(line))
      }
    }
    let crashed = process.terminationReason == .uncaughtSignal || process.terminationStatus != 0
    if let current, crashed {
      results[start + current] = lines + ["T trapped: " + trapMessage(errURL)]
      start += current + 1
    } else if crashed {
      // Crashed between scripts (should not happen): mark the next one and go on.
      let next = lastFinished + 1
      if start + next < scripts.count {
        results[start + next] = ["T child crashed: " + trapMessage(errURL)]
      }
      start += next + 1
    } else {
      start = scripts.count
    }
  }
  return results.map { $0 ?? ["T missing"] }
}

/// The trap's message from a child's standard error: the `Fatal error: …` (or precondition,
/// assertion) line, without the file and line.
func trapMessage(_ url: URL) -> String {
  let text = (try? String(contentsOf: url, encoding: .utf8)) ?? ""
  for line in text.split(separator: "\n").reversed() {
    for marker in ["Fatal error: ", "Precondition failed: ", "Assertion failed: ", "fatal error: "]
    {
      if let range = line.range(of: marker) {
        var message = String(line[range.lowerBound...])
        // "…: message: file path/File.swift, line 12" -> drop the location.
        if let at = message.range(of: ": file ", options: .backwards) {
          message = String(message[..<at.lowerBound])
        }
        return message
      }
    }
  }
  return "(no message)"
}

/// Both libraries' traces, each library in its own child, the two at once.
func bothTraces(_ scripts: [Script]) -> (streamKit: [[String]], openCombine: [[String]]) {
  nonisolated(unsafe) var sk: [[String]] = []
  nonisolated(unsafe) var oc: [[String]] = []
  let group = DispatchGroup()
  DispatchQueue.global().async(group: group) { sk = traces("streamkit", scripts) }
  DispatchQueue.global().async(group: group) { oc = traces("opencombine", scripts) }
  group.wait()
  return (sk, oc)
}

// MARK: - Classifying and shrinking

let severalDownstreams = Set(
  StreamKitScenarios.Scenarios.operators.filter(\.multiDownstream).map(\.name)
)

struct Finding {
  var script: Script
  var difference: Difference
  var expectation: Expectation?
  var kind: DifferenceClass { expectation?.kind ?? defaultClass(of: difference, in: script) }
  /// Differences are grouped by operator, signature and whether the script misbehaves.
  var key: String {
    "\(script.op) | \(script.isMisbehaving ? "misbehaving" : "generated") | \(difference.signature)"
  }
}

func findings(_ script: Script, _ sk: [String], _ oc: [String]) -> [Finding] {
  Compare.differences(
    streamKit: sk,
    openCombine: oc,
    severalDownstreams: severalDownstreams.contains(script.op)
  ).map { difference in
    Finding(
      script: script,
      difference: difference,
      expectation: expectations.first { $0.matches(difference, in: script) }
    )
  }
}

/// Removes steps (and the initial request) while a difference with the same signature persists.
func shrink(_ finding: Finding) -> Script {
  var best = finding.script
  func stillDiffers(_ s: Script, _ sk: [String], _ oc: [String]) -> Bool {
    // A new finding shrinks to a script where it is still new, not one an entry absorbs.
    findings(s, sk, oc).contains {
      $0.difference.signature == finding.difference.signature
        && ($0.expectation == nil) == (finding.expectation == nil)
    }
  }
  while true {
    var candidates: [Script] = []
    // Halves first, then single steps, then simpler initial demands.
    let n = best.steps.count
    if n >= 4 {
      candidates.append(
        Script(
          op: best.op,
          initial: best.initial,
          lateSubscription: best.lateSubscription,
          lateUpstream: best.lateUpstream,
          steps: Array(best.steps[(n / 2)...])
        )
      )
      candidates.append(
        Script(
          op: best.op,
          initial: best.initial,
          lateSubscription: best.lateSubscription,
          lateUpstream: best.lateUpstream,
          steps: Array(best.steps[..<(n / 2)])
        )
      )
    }
    for i in 0..<n {
      var s = best
      s.steps.remove(at: i)
      candidates.append(s)
    }
    for initial in [nil, ScriptDemand.unlimited, .max(1)] where initial != best.initial {
      var s = best
      s.initial = initial
      candidates.append(s)
    }
    let (sk, oc) = bothTraces(candidates)
    guard let i = candidates.indices.first(where: { stillDiffers(candidates[$0], sk[$0], oc[$0]) })
    else {
      return best
    }
    // Only accept simpler scripts (fewer steps, or the same steps with a simpler start).
    if candidates[i].steps.count == best.steps.count && i < candidates.count {
      let rank: (ScriptDemand?) -> Int = {
        $0 == nil ? 0 : $0 == .unlimited ? 1 : $0 == .max(1) ? 2 : 3
      }
      if rank(candidates[i].initial) >= rank(best.initial) { return best }
    }
    best = candidates[i]
  }
}

// MARK: - Main

let options = parseOptions()
if let library = options.child { runChild(library, mutant: options.mutant) }
if let library = options.concurrencyChild {
  if library == "streamkit", let name = options.mutant { Mutants.active = Mutants.named(name) }
  guard let check = options.check,
    let lines = library == "streamkit"
      ? StreamKitScenarios.ConcurrencyScenarios.run(check)
      : OpenCombineScenarios.ConcurrencyScenarios.run(check)
  else { usage() }
  for line in lines { print(line) }
  exit(0)
}
if options.concurrency {
  exit(compareConcurrency(mutant: options.mutant) ? 0 : 1)
}
activeMutant = options.mutant
if options.selfTest {
  exit(selfTest(seed: options.seed, scriptsPerOperator: options.scriptsPerOperator) ? 0 : 1)
}

let allShapes = StreamKitScenarios.Scenarios.operators
if options.list {
  for shape in allShapes { print(shape.name) }
  exit(0)
}

if let encoded = options.script {
  guard let script = Script(encoded: encoded) else {
    print("cannot parse the script: \(encoded)")
    exit(2)
  }
  let (sk, oc) = bothTraces([script])
  print("script: \(script.encoded)\n")
  print(Compare.sideBySide(streamKit: sk[0], openCombine: oc[0], context: 1000, limit: 1000))
  let found = findings(script, sk[0], oc[0])
  for f in found {
    let status = f.expectation.map { ($0.intended ? "INTENDED " : "KNOWN ") + $0.id } ?? "NEW"
    print("difference [\(f.kind.rawValue)] \(status): \(f.difference.signature)")
    print("  StreamKit:   \(f.difference.streamKitHunk)")
    print("  OpenCombine: \(f.difference.openCombineHunk)")
  }
  if found.isEmpty { print("no difference") }
  exit(found.contains { $0.expectation == nil } ? 1 : 0)
}

let shapes =
  options.operators.isEmpty ? allShapes : allShapes.filter { options.operators.contains($0.name) }
if shapes.isEmpty {
  print("no such operator; --list shows them")
  exit(2)
}

let started = Date()
var scripts: [Script] = []
for shape in shapes {
  for i in 0..<shape.scripts(budget: options.scriptsPerOperator) {
    scripts.append(Generator.script(for: shape, seed: options.seed, index: i))
  }
  scripts += Generator.misbehaviourScripts(for: shape)
}

// One big batch per library; children restart after traps.
let (skTraces, ocTraces) = bothTraces(scripts)

if options.listTraps {
  var pairs: [String: Int] = [:]
  for (i, script) in scripts.enumerated() {
    let sk = Compare.lines(skTraces[i], .trap).first
    let oc = Compare.lines(ocTraces[i], .trap).first
    guard sk != nil || oc != nil else { continue }
    let key =
      "\(script.op)\n    StreamKit:   \(sk ?? "-") [\(TrapMeaning.of(sk))]\n    OpenCombine: \(oc ?? "-") [\(TrapMeaning.of(oc))]"
    pairs[key, default: 0] += 1
  }
  for (key, n) in pairs.sorted(by: { $0.key < $1.key }) { print("\(n)x \(key)") }
  exit(0)
}

var groups: [String: [Finding]] = [:]
var order: [String] = []
var scenariosWithDifference = 0
var traps = (streamKit: 0, openCombine: 0)
for (i, script) in scripts.enumerated() {
  if skTraces[i].last?.hasPrefix("T ") == true { traps.streamKit += 1 }
  if ocTraces[i].last?.hasPrefix("T ") == true { traps.openCombine += 1 }
  let found = findings(script, skTraces[i], ocTraces[i])
  if !found.isEmpty { scenariosWithDifference += 1 }
  for f in found {
    if groups[f.key] == nil { order.append(f.key) }
    groups[f.key, default: []].append(f)
  }
}

// Report.
// Every finding is classified: a group is new when any one of its findings matches no entry
// (a later finding with the first one's signature may not be what the entry describes).
var newKeys: [String] = []
var byClass: [DifferenceClass: (new: Int, known: Int, intended: Int)] = [:]
var matchedExpectations = Set<String>()
/// How many findings (one script's difference) each entry absorbs, by id.
var findingsPerEntry: [String: Int] = [:]
for key in order {
  let group = groups[key]!
  for f in group {
    guard let e = f.expectation else { continue }
    matchedExpectations.insert(e.id)
    findingsPerEntry[e.id, default: 0] += 1
  }
  if let f = group.first(where: { $0.expectation == nil }) {
    newKeys.append(key)
    byClass[f.kind, default: (0, 0, 0)].new += 1
  } else if group[0].expectation!.intended {
    byClass[group[0].kind, default: (0, 0, 0)].intended += 1
  } else {
    byClass[group[0].kind, default: (0, 0, 0)].known += 1
  }
}

if options.emitKnown {
  // One entry per operator, channel (trap side) and kind of script, naming the first signature seen.
  var entries: [String: (f: Finding, signatures: [String])] = [:]
  var entryOrder: [String] = []
  for key in newKeys {
    let f = groups[key]!.first { $0.expectation == nil }!
    let sig = f.difference.signature
    let head =
      sig.hasPrefix("T ") ? String(sig.prefix(while: { $0 != ":" })) : String(sig.prefix(2))
    let entryKey = "\(f.script.op)|\(head)|\(f.script.isMisbehaving)"
    if entries[entryKey] == nil { entryOrder.append(entryKey) }
    entries[entryKey, default: (f, [])].signatures.append(sig)
  }
  func swiftString(_ s: String) -> String {
    "\""
      + s.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
      + "\""
  }
  let classCase: [DifferenceClass: String] = [
    .demandPattern: ".demandPattern", .misbehavingUpstream: ".misbehavingUpstream",
    .descriptionMirror: ".descriptionMirror", .lifecycle: ".lifecycle", .other: ".other",
  ]
  for (n, entryKey) in entryOrder.enumerated() {
    let (f, signatures) = entries[entryKey]!
    let parts = entryKey.split(separator: "|")
    let more = signatures.count > 1 ? " (+\(signatures.count - 1) more)" : ""
    let first: String
    switch f.difference.channel {
    case .events:
      first =
        "events first differ: StreamKit `\(f.difference.streamKit ?? "(nothing)")`, OpenCombine `\(f.difference.openCombine ?? "(nothing)")`"
    case .descriptions: first = "\(signatures[0].dropFirst(2)) differs"
    case .lifecycle: first = "life cycle: \(signatures[0].dropFirst(2))"
    case .trap: first = String(signatures[0].dropFirst(2))
    }
    let summary = "\(f.script.isMisbehaving ? "with a misbehaving upstream, " : "")\(first)\(more)"
    print(
      "  .init(\(swiftString(String(format: "K%03d", n + 1))), [\(swiftString(f.script.op))], \(swiftString(String(parts[1]))), "
        + "misbehaving: \(f.script.isMisbehaving), \(classCase[f.kind]!), \(swiftString(summary))),"
    )
  }
  exit(0)
}

var reported = 0
for key in order {
  let group = groups[key]!
  // The shortest script of the group is the best start for shrinking; when the first finding is
  // new (what the summary counts), the shortest of the new ones.
  let unmatched = group.filter { $0.expectation == nil }
  let candidates = unmatched.isEmpty ? group : unmatched
  let f = candidates.min { $0.script.steps.count < $1.script.steps.count }!
  let isNew = f.expectation == nil
  guard isNew || options.shrinkAll || options.verbose else { continue }
  if !isNew && !options.shrinkAll {
    print(
      "expected: [\(f.kind.rawValue)] \(f.expectation!.intended ? "INTENDED" : "KNOWN") \(f.expectation!.id): \(key) (\(group.count) scripts)"
    )
    continue
  }
  guard reported < options.maxReports else { continue }
  reported += 1
  let shrunk = shrink(f)
  let (sk, oc) = bothTraces([shrunk])
  let status = f.expectation.map { ($0.intended ? "INTENDED " : "KNOWN ") + $0.id } ?? "NEW"
  print(
    """

    ==== \(status) difference [\(f.kind.rawValue)] in \(f.script.op) (seed \(options.seed), \(group.count) scripts)
    signature: \(f.difference.signature)
    original:  \(f.script.encoded)
    shrunk:    \(shrunk.encoded)
    rerun:     swift run Differential --script '\(shrunk.encoded)'
    """
  )
  print(Compare.sideBySide(streamKit: sk[0], openCombine: oc[0]))
}

let elapsed = Date().timeIntervalSince(started)
print("\n==== Summary (seed \(options.seed))")
print("operators: \(shapes.count), random scripts per operator: \(options.scriptsPerOperator)")
print(
  "scenarios run: \(scripts.count) (\(scripts.filter(\.isMisbehaving).count) misbehaving-upstream cases), each on both libraries"
)
print(
  "scenarios with a difference: \(scenariosWithDifference); traps: StreamKit \(traps.streamKit), OpenCombine \(traps.openCombine)"
)
print("distinct differences: \(order.count) (new \(newKeys.count))")
for kind in DifferenceClass.allCases {
  let c = byClass[kind] ?? (0, 0, 0)
  print("  \(kind.rawValue): new \(c.new), known \(c.known), intended \(c.intended)")
}
if options.operators.isEmpty {
  let stale = expectations.filter { !matchedExpectations.contains($0.id) }
  for e in stale {
    print(
      "note: expectation \(e.id) matched nothing in this run (fixed, or not reached by this seed and budget? if fixed, delete it): \(e.summary)"
    )
  }
}
if options.verbose {
  var printed = Set<String>()
  for e in expectations where findingsPerEntry[e.id] != nil && printed.insert(e.id).inserted {
    print("entry \(e.id) absorbs \(findingsPerEntry[e.id]!) finding(s): \(e.summary)")
  }
}
print(
  "findings (one script's difference): \(groups.values.reduce(0) { $0 + $1.count }), absorbed by an entry: \(findingsPerEntry.values.reduce(0, +))"
)
print("child processes: \(childLaunches), time: \(Int(elapsed)) s")
if !newKeys.isEmpty {
  print("FAIL: \(newKeys.count) difference(s) in neither INTENDED nor KNOWN:")
  for key in newKeys { print("  \(key)") }
  flushOutput()
  exit(1)
}
print("PASS")
flushOutput()
exit(0)
