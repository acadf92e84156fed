// Runs the workloads against StreamKit (`StreamCore`) and OpenCombine.
//
//   Bench [--rounds R] [--only WORKLOAD[,WORKLOAD...]] [--scale S] [--json]
//       Every workload (or those named) for both implementations, interleaved in this process,
//       R rounds (default 7), alternating which implementation goes first. Prints ns/op of the
//       median round (and of the best one), heap allocations/op in the steady state, and the
//       StreamKit/OpenCombine ratio of the medians. --json prints one JSON object per line instead.
//   Bench --impl streamkit|opencombine --workload NAME [--n N]
//       Runs exactly one workload once (N defaults to the workload's default size); for callgrind.
//   Bench --check-malloc-counter
//       Checks that the allocation counter sees Swift allocations.
//   Bench --list
//       Prints each workload as "NAME DEFAULT_N UNIT".

import MallocCounter
import OpenCombineWorkloads
import StreamKitWorkloads

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// MARK: - Implementations

struct Implementation {
  let name: String
  let run: (String, Int, (() -> Void) -> Void) -> Int?
}

let streamKit = Implementation(name: "streamkit") { name, n, measure in
  StreamKitWorkloads.Workloads.run(name, n: n, measure: measure)
}
let openCombine = Implementation(name: "opencombine") { name, n, measure in
  OpenCombineWorkloads.Workloads.run(name, n: n, measure: measure)
}
let implementations = [streamKit, openCombine]

// MARK: - Arguments

func fail(_ message: String) -> Never {
  var text = "Bench: \(message)\n"
  text.withUTF8 { bytes in _ = write(2, bytes.baseAddress, bytes.count) }
  exit(2)
}

var options: [String: String] = [:]
var flags: Set<String> = []
do {
  var args = CommandLine.arguments.dropFirst()[...]
  let valued: Set<String> = ["--impl", "--workload", "--n", "--rounds", "--only", "--scale"]
  let boolean: Set<String> = ["--json", "--check-malloc-counter", "--list", "--help", "-h"]
  while let arg = args.popFirst() {
    if valued.contains(arg) {
      guard let value = args.popFirst() else { fail("\(arg) needs a value") }
      options[arg] = value
    } else if boolean.contains(arg) {
      flags.insert(arg)
    } else {
      fail("unknown argument \(arg) (try --help)")
    }
  }
}

@MainActor
func intOption(_ key: String) -> Int? {
  guard let text = options[key] else { return nil }
  guard let value = Int(text.filter { $0 != "_" }), value > 0 else {
    fail("\(key) must be a positive integer, got \(text)")
  }
  return value
}

// MARK: - Malloc counter self-check

final class Probe {
  var value: Int
  init(_ value: Int) { self.value = value }
}

/// Defeats stack promotion: the object escapes into a global.
nonisolated(unsafe) var probeSink: Probe?

@inline(never)
func allocateProbes(_ count: Int) -> Int {
  var total = 0
  for i in 0..<count {
    let probe = Probe(i)
    probeSink = probe
    total &+= probeSink!.value
  }
  return total
}

func checkMallocCounter() -> Bool {
  guard malloc_counter_is_active() != 0 else {
    print("malloc counter: inactive on this platform (allocations will read 0)")
    return false
  }
  _ = allocateProbes(10)  // warm up
  let before = malloc_counter_allocations()
  let total = allocateProbes(1000)
  let counted = malloc_counter_allocations() - before
  let ok = counted >= 1000 && counted <= 1010
  print(
    "malloc counter: 1000 Swift objects -> \(counted) allocations counted (\(ok ? "ok" : "WRONG")) [\(total)]"
  )
  return ok
}

// MARK: - Single-workload mode (for callgrind)

if flags.contains("--help") || flags.contains("-h") {
  print(
    """
    usage: Bench [--rounds R] [--only WORKLOAD] [--scale S] [--json]
           Bench --impl streamkit|opencombine --workload NAME [--n N]
           Bench --check-malloc-counter
           Bench --list
    workloads: \(StreamKitWorkloads.Workloads.all.map(\.name).joined(separator: ", "))
    """
  )
  exit(0)
}

if flags.contains("--list") {
  for info in StreamKitWorkloads.Workloads.all {
    print(info.name, info.defaultN, info.unit)
  }
  exit(0)
}

if flags.contains("--check-malloc-counter") {
  exit(checkMallocCounter() ? 0 : 1)
}

if let implName = options["--impl"] {
  guard let impl = implementations.first(where: { $0.name == implName }) else {
    fail("--impl must be streamkit or opencombine")
  }
  guard let workload = options["--workload"] else { fail("--impl needs --workload") }
  guard let info = StreamKitWorkloads.Workloads.info(workload) else {
    fail("unknown workload \(workload)")
  }
  let n = intOption("--n") ?? info.defaultN
  guard let checksum = impl.run(workload, n, { body in body() }) else {
    fail("unknown workload \(workload)")
  }
  print("\(impl.name) \(workload) n=\(n) checksum=\(checksum)")
  exit(0)
}

// MARK: - Comparison mode

struct Sample {
  var nanos: [UInt64] = []
  var bestNanos: UInt64 { nanos.min() ?? 0 }
  /// The median round (the lower middle one for an even count).
  var medianNanos: UInt64 {
    let sorted = nanos.sorted()
    return sorted.isEmpty ? 0 : sorted[(sorted.count - 1) / 2]
  }
  var minAllocations = UInt64.max
  var checksum: Int?
}

func now() -> UInt64 {
  var ts = timespec()
  clock_gettime(CLOCK_MONOTONIC, &ts)
  return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
}

let rounds = intOption("--rounds") ?? 7
let scale = intOption("--scale") ?? 1
let json = flags.contains("--json")
var workloads = StreamKitWorkloads.Workloads.all
if let only = options["--only"] {
  let names = only.split(separator: ",").map(String.init)
  workloads = workloads.filter { names.contains($0.name) }
  if workloads.isEmpty { fail("unknown workload \(only)") }
}

if !json {
  _ = checkMallocCounter()
  print(
    "\(rounds) rounds, interleaved; median round reported (best in brackets); allocations are per"
      + " op, over the hot loop only\n"
  )
}

var samples: [String: Sample] = [:]  // key: "impl/workload"
for round in 0..<rounds {
  for info in workloads {
    let n = info.defaultN * scale
    // Alternate which implementation goes first, so neither always runs on a warmer cache.
    let order = round % 2 == 0 ? implementations : implementations.reversed()
    for impl in order {
      var nanos: UInt64 = 0
      var allocations: UInt64 = 0
      let checksum = impl.run(info.name, n) { body in
        let a0 = malloc_counter_allocations()
        let t0 = now()
        body()
        let t1 = now()
        allocations = malloc_counter_allocations() - a0
        nanos = t1 - t0
      }
      let key = "\(impl.name)/\(info.name)"
      var sample = samples[key] ?? Sample()
      sample.nanos.append(nanos)
      sample.minAllocations = min(sample.minAllocations, allocations)
      if let previous = sample.checksum, previous != checksum {
        fail(
          "\(key): checksum changed between rounds (\(previous) vs \(String(describing: checksum)))"
        )
      }
      sample.checksum = checksum
      samples[key] = sample
    }
  }
}

func format(_ value: Double, _ decimals: Int) -> String {
  var factor = 1.0
  for _ in 0..<decimals { factor *= 10 }
  let rounded = (value * factor).rounded() / factor
  var text = "\(rounded)"
  if let dot = text.firstIndex(of: ".") {
    let have = text.distance(from: dot, to: text.endIndex) - 1
    if have < decimals { text += String(repeating: "0", count: decimals - have) }
  } else if decimals > 0 {
    text += "." + String(repeating: "0", count: decimals)
  }
  return text
}

func pad(_ text: String, _ width: Int, left: Bool = false) -> String {
  let padding = String(repeating: " ", count: max(0, width - text.count))
  return left ? text + padding : padding + text
}

if !json {
  print(
    pad("workload", 16, left: true),
    pad("SK ns/op [best]", 20, left: true),
    pad("OC ns/op [best]", 20, left: true),
    pad("ratio", 7),
    pad("SK allocs/op", 13),
    pad("OC allocs/op", 13),
    pad("SK checksum", 16),
    " match"
  )
}
for info in workloads {
  let n = info.defaultN * scale
  let sk = samples["streamkit/\(info.name)"]!
  let oc = samples["opencombine/\(info.name)"]!
  let skNs = Double(sk.medianNanos) / Double(n)
  let ocNs = Double(oc.medianNanos) / Double(n)
  let skBest = Double(sk.bestNanos) / Double(n)
  let ocBest = Double(oc.bestNanos) / Double(n)
  let skAllocs = Double(sk.minAllocations) / Double(n)
  let ocAllocs = Double(oc.minAllocations) / Double(n)
  let match = sk.checksum == oc.checksum
  if json {
    for (impl, ns, best, allocs, checksum) in [
      ("streamkit", skNs, skBest, skAllocs, sk.checksum),
      ("opencombine", ocNs, ocBest, ocAllocs, oc.checksum),
    ] {
      print(
        "{\"impl\":\"\(impl)\",\"workload\":\"\(info.name)\",\"n\":\(n),\"rounds\":\(rounds),"
          + "\"ns_per_op\":\(ns),\"best_ns_per_op\":\(best),\"allocs_per_op\":\(allocs),"
          + "\"checksum\":\(checksum.map(String.init) ?? "null")}"
      )
    }
  } else {
    print(
      pad(info.name, 16, left: true),
      pad(format(skNs, 2) + " [\(format(skBest, 2))]", 20, left: true),
      pad(format(ocNs, 2) + " [\(format(ocBest, 2))]", 20, left: true),
      pad(format(skNs / ocNs, 2), 7),
      pad(format(skAllocs, 3), 13),
      pad(format(ocAllocs, 3), 13),
      pad(sk.checksum.map(String.init) ?? "-", 16),
      match ? " yes" : " NO"
    )
  }
}
