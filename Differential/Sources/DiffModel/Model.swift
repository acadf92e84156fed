// The library-neutral model of the differential oracle: scripts (what a scenario does, step by
// step), their text encoding (one line, pasteable into a regression test or onto the command line),
// the seeded generator, and the comparison of two traces.
//
// Nothing here imports StreamKit or OpenCombine: the scenario source (compiled once per library)
// interprets a `Script` and returns its trace, a list of strings.

/// A demand in a script: `.max(n)` or `.unlimited`, library-neutral.
public enum ScriptDemand: Hashable, Sendable, CustomStringConvertible {
  case max(Int)
  case unlimited

  public var description: String {
    switch self {
    case .max(let n): "\(n)"
    case .unlimited: "u"
    }
  }

  init?(token: Substring) {
    if token == "u" {
      self = .unlimited
    } else if let n = Int(token) {
      self = .max(n)
    } else {
      return nil
    }
  }
}

/// One step of a script. Upstream steps name the upstream by index (0 for single-input operators;
/// 1, 2, … for the second input of `zip`/`append`/`catch`, and for the children that `flatMap`
/// and `switchToLatest` create, in the order they are subscribed). Downstream steps name the
/// downstream by index (several only for subjects and the sharing operators).
public enum Step: Hashable, Sendable {
  /// Upstream `u` sends `x`, if it has demand and has not ended (otherwise the step logs a skip).
  case value(u: Int, x: Int)
  /// Upstream `u` finishes, if it has not ended.
  case finish(u: Int)
  /// Upstream `u` fails with error code `c`, if it has not ended.
  case fail(u: Int, c: Int)
  /// Downstream `d` calls `request(_:)` on its subscription.
  case request(d: Int, ScriptDemand)
  /// Downstream `d` cancels its subscription.
  case cancel(d: Int)
  /// From now on downstream `d` returns this demand from `receive(_:)`.
  case returns(d: Int, ScriptDemand)
  /// On its next value, downstream `d` calls `request(_:)` from inside `receive(_:)`.
  case requestInReceive(d: Int, ScriptDemand)
  /// On its next value, downstream `d` cancels from inside `receive(_:)`.
  case cancelInReceive(d: Int)
  /// A new downstream subscribes (subjects and sharing operators).
  case attach
  /// `connect()` on a connectable publisher.
  case connect
  /// Misbehaving: upstream `u` sends `x` whatever its demand and state.
  case forceValue(u: Int, x: Int)
  /// Misbehaving: upstream `u` finishes whatever its state.
  case forceFinish(u: Int)
  /// Misbehaving: upstream `u` fails whatever its state.
  case forceFail(u: Int, c: Int)
  /// Upstream `u` calls `receive(subscription:)` (again, or for the first time when the
  /// script subscribes late).
  case sendSubscription(u: Int)
  /// The virtual-time scheduler of the time operators advances by `n` ticks, running every
  /// action due by then (`t0` runs only what is due now).
  case advance(Int)

  /// Whether the step breaks the publisher protocol (or may, for `sendSubscription`).
  public var isMisbehaving: Bool {
    switch self {
    case .forceValue, .forceFinish, .forceFail, .sendSubscription: true
    default: false
    }
  }

  /// The step's text: a few characters, see `Script.encoded`.
  public var token: String {
    switch self {
    case .value(let u, let x): "v\(u).\(x)"
    case .finish(let u): "f\(u)"
    case .fail(let u, let c): "e\(u).\(c)"
    case .request(let d, let n): "r\(d).\(n)"
    case .cancel(let d): "c\(d)"
    case .returns(let d, let n): "R\(d).\(n)"
    case .requestInReceive(let d, let n): "i\(d).\(n)"
    case .cancelInReceive(let d): "k\(d)"
    case .attach: "A"
    case .connect: "C"
    case .forceValue(let u, let x): "V\(u).\(x)"
    case .forceFinish(let u): "F\(u)"
    case .forceFail(let u, let c): "E\(u).\(c)"
    case .sendSubscription(let u): "S\(u)"
    case .advance(let n): "t\(n)"
    }
  }

  /// Parses a step's token.
  public init?(token: Substring) {
    guard let kind = token.first else { return nil }
    let rest = token.dropFirst()
    let parts = rest.split(separator: ".", omittingEmptySubsequences: false)
    func int(_ i: Int) -> Int? { i < parts.count ? Int(parts[i]) : nil }
    func demand() -> ScriptDemand? { parts.count == 2 ? ScriptDemand(token: parts[1]) : nil }
    switch kind {
    case "A": self = .attach
    case "C": self = .connect
    default:
      guard let n = int(0) else { return nil }
      switch kind {
      case "v":
        guard let x = int(1) else { return nil }
        self = .value(u: n, x: x)
      case "f": self = .finish(u: n)
      case "e":
        guard let c = int(1) else { return nil }
        self = .fail(u: n, c: c)
      case "r":
        guard let d = demand() else { return nil }
        self = .request(d: n, d)
      case "c": self = .cancel(d: n)
      case "R":
        guard let d = demand() else { return nil }
        self = .returns(d: n, d)
      case "i":
        guard let d = demand() else { return nil }
        self = .requestInReceive(d: n, d)
      case "k": self = .cancelInReceive(d: n)
      case "V":
        guard let x = int(1) else { return nil }
        self = .forceValue(u: n, x: x)
      case "F": self = .forceFinish(u: n)
      case "E":
        guard let c = int(1) else { return nil }
        self = .forceFail(u: n, c: c)
      case "S": self = .sendSubscription(u: n)
      case "t": self = .advance(n)
      default: return nil
      }
    }
  }
}

/// A scenario: which operator, how the first downstream starts, and the steps.
public struct Script: Hashable, Sendable {
  /// The operator's name, one of the scenario source's `operators`.
  public var op: String
  /// What the first downstream requests inside `receive(subscription:)` (`nil`: nothing).
  public var initial: ScriptDemand?
  /// When true, upstream `lateUpstream` does not call `receive(subscription:)` when subscribed;
  /// a `sendSubscription(u: lateUpstream)` step does (misbehaviour: events before the
  /// subscription).
  public var lateSubscription: Bool
  /// The upstream that subscribes late (0 unless a multi-input case says otherwise).
  public var lateUpstream: Int
  /// The steps, in order.
  public var steps: [Step]

  public init(
    op: String,
    initial: ScriptDemand?,
    lateSubscription: Bool = false,
    lateUpstream: Int = 0,
    steps: [Step]
  ) {
    self.op = op
    self.initial = initial
    self.lateSubscription = lateSubscription
    self.lateUpstream = lateUpstream
    self.steps = steps
  }

  /// Whether any step breaks the protocol.
  public var isMisbehaving: Bool { lateSubscription || steps.contains { $0.isMisbehaving } }

  /// One line: `op initial [late] step step …`, for example `map 1 v0.3 f0`.
  /// `initial` is `-` for no request in `receive(subscription:)`; `late1` makes upstream 1 the
  /// one that subscribes late.
  public var encoded: String {
    var parts = [op, initial.map(\.description) ?? "-"]
    if lateSubscription { parts.append(lateUpstream == 0 ? "late" : "late\(lateUpstream)") }
    parts += steps.map(\.token)
    return parts.joined(separator: " ")
  }

  /// Parses `encoded`.
  public init?(encoded: String) {
    let parts = encoded.split(separator: " ")
    guard parts.count >= 2 else { return nil }
    op = String(parts[0])
    initial = parts[1] == "-" ? nil : ScriptDemand(token: parts[1])
    if parts[1] != "-" && initial == nil { return nil }
    var rest = parts.dropFirst(2)
    lateUpstream = 0
    lateSubscription = false
    if let first = rest.first, first.hasPrefix("late") {
      guard let n = first == "late" ? 0 : Int(first.dropFirst(4)) else { return nil }
      lateSubscription = true
      lateUpstream = n
      rest = rest.dropFirst()
    }
    var steps: [Step] = []
    for token in rest {
      guard let step = Step(token: token) else { return nil }
      steps.append(step)
    }
    self.steps = steps
  }
}

/// What the generator needs to know about an operator's shape.
public struct OperatorShape: Sendable {
  /// The operator's name.
  public var name: String
  /// How many scripted upstreams the scenario starts with (0 for subjects and `Just`-like sources).
  public var upstreams: Int
  /// Whether the operator creates more upstreams as it goes (`flatMap`, `switchToLatest`, `catch`,
  /// `retry`): steps may address upstream indices up to `upstreams + extraUpstreams - 1`.
  public var extraUpstreams: Int
  /// Whether more downstreams may attach (`A`) and `connect` (`C`) applies.
  public var multiDownstream: Bool
  public var connectable: Bool
  /// Whether upstream 0 can fail (false for `Never`-failing upstreams: `setFailureType`).
  public var canFail: Bool
  /// Whether misbehaving-upstream cases apply (single-input operators over a scripted upstream,
  /// and the multi-input operators given `misbehavingSetup`).
  public var misbehaviour: Bool
  /// For the multi-input operators: for each upstream whose misbehaviour is tried, the steps
  /// that make it subscribed (`v0.0` for the first child of `flatMap`, `f0` for the second
  /// publisher of `append`), by upstream index. `[[]]` for a single-input operator.
  public var misbehavingSetup: [[Step]]
  /// Whether the operator runs on the virtual-time scheduler: scripts then advance it (`t`).
  public var timed: Bool
  /// At most this many random scripts, whatever the run's budget: a publisher with no scripted
  /// upstream has only its downstream's steps, which a few dozen scripts exhaust.
  public var maxScripts: Int?

  public init(
    _ name: String,
    upstreams: Int = 1,
    extraUpstreams: Int = 0,
    multiDownstream: Bool = false,
    connectable: Bool = false,
    canFail: Bool = true,
    misbehaviour: Bool = true,
    misbehavingSetup: [[Step]]? = nil,
    timed: Bool = false,
    maxScripts: Int? = nil
  ) {
    self.name = name
    self.upstreams = upstreams
    self.extraUpstreams = extraUpstreams
    self.multiDownstream = multiDownstream
    self.connectable = connectable
    self.canFail = canFail
    let single = upstreams == 1 && extraUpstreams == 0 && !multiDownstream
    self.misbehaviour = misbehaviour && (single || misbehavingSetup != nil)
    self.misbehavingSetup = misbehavingSetup ?? [[]]
    self.timed = timed
    self.maxScripts = maxScripts
  }

  /// How many random scripts a run with `budget` per operator gives this one.
  public func scripts(budget: Int) -> Int { min(budget, maxScripts ?? budget) }
}

/// SplitMix64: small, fast, and the same on every platform, so a seed always makes the same script.
public struct SeededRandom: RandomNumberGenerator, Sendable {
  var state: UInt64
  public init(seed: UInt64) { state = seed &+ 0x9E37_79B9_7F4A_7C15 }
  public mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}

/// Seeded random scripts for one operator.
public enum Generator {
  /// The script number `index` for `shape` under `seed`: the same arguments give the same script.
  public static func script(for shape: OperatorShape, seed: UInt64, index: Int) -> Script {
    var hash: UInt64 = 1_469_598_103_934_665_603
    for byte in shape.name.utf8 {
      hash = (hash ^ UInt64(byte)) &* 1_099_511_628_211
    }
    var rng = SeededRandom(seed: seed ^ hash ^ (UInt64(index) &* 0x2545_F491_4F6C_DD1D))
    // `request(.max(0))` traps; only one script in eight may make it, so few scripts end in a trap
    // (each trap costs a new child process).
    let zeroAllowed = index % 8 == 7
    func demand() -> ScriptDemand {
      switch Int.random(in: 0..<20, using: &rng) {
      case 0: zeroAllowed ? .max(0) : .max(1)
      case 1..<8: .max(1)
      case 8..<12: .max(2)
      case 12..<15: .max(3)
      default: .unlimited
      }
    }
    func returned() -> ScriptDemand {
      switch Int.random(in: 0..<10, using: &rng) {
      case 0..<5: .max(0)
      case 5..<8: .max(1)
      case 8: .max(2)
      default: .unlimited
      }
    }
    let initial: ScriptDemand? =
      Int.random(in: 0..<4, using: &rng) == 0
      ? nil : [.max(1), .max(2), .max(3), .unlimited, .unlimited].randomElement(using: &rng)!
    let upstreamCount = max(1, shape.upstreams + shape.extraUpstreams)
    var downstreams = 1
    var steps: [Step] = []
    let length = Int.random(in: 1...14, using: &rng)
    for _ in 0..<length {
      // Time operators: about one step in three advances the virtual clock (0 to 3 ticks).
      // (No extra random draw for the other operators, so their scripts stay as they were.)
      if shape.timed, Int.random(in: 0..<3, using: &rng) == 0 {
        steps.append(.advance([0, 1, 1, 2, 3].randomElement(using: &rng)!))
        continue
      }
      let u = Int.random(in: 0..<upstreamCount, using: &rng)
      let d = Int.random(in: 0..<downstreams, using: &rng)
      let roll = Int.random(in: 0..<100, using: &rng)
      switch roll {
      case 0..<40: steps.append(.value(u: u, x: Int.random(in: 0..<5, using: &rng)))
      case 40..<46: steps.append(.finish(u: u))
      case 46..<50:
        steps.append(
          shape.canFail || u > 0
            ? .fail(u: u, c: Int.random(in: 1...2, using: &rng)) : .finish(u: u)
        )
      case 50..<66: steps.append(.request(d: d, demand()))
      case 66..<74: steps.append(.returns(d: d, returned()))
      case 74..<80: steps.append(.requestInReceive(d: d, demand()))
      case 80..<83: steps.append(.cancel(d: d))
      case 83..<85: steps.append(.cancelInReceive(d: d))
      case 85..<93 where shape.multiDownstream:
        steps.append(.attach)
        downstreams += 1
      case 93..<100 where shape.connectable: steps.append(.connect)
      default: steps.append(.value(u: u, x: Int.random(in: 0..<5, using: &rng)))
      }
    }
    return Script(op: shape.name, initial: initial, steps: steps)
  }

  /// The misbehaving-upstream cases for a single-input operator: each protocol violation, at each
  /// stage of the subscription (before any demand, with demand, after the completion, after a cancel).
  public static func misbehaviourScripts(for shape: OperatorShape) -> [Script] {
    guard shape.misbehaviour else { return [] }
    var scripts: [Script] = []
    for (u, setup) in shape.misbehavingSetup.enumerated() {
      scripts += misbehaviourScripts(op: shape.name, upstream: u, setup: setup)
    }
    return scripts
  }

  /// The cases for upstream `u`, each starting with `setup` (what makes `u` subscribed). For a
  /// multi-input operator every other upstream stays well-behaved; the downstream asks for
  /// values, so that a value on `u` can form an output.
  static func misbehaviourScripts(op: String, upstream u: Int, setup: [Step]) -> [Script] {
    var scripts: [Script] = []
    func add(_ initial: ScriptDemand?, late: Bool = false, _ steps: [Step]) {
      scripts.append(
        Script(
          op: op,
          initial: initial,
          lateSubscription: late,
          lateUpstream: u,
          steps: setup + steps
        )
      )
    }
    // A value, a completion, before `receive(subscription:)`.
    add(
      .max(1),
      late: true,
      [.forceValue(u: u, x: 1), .sendSubscription(u: u), .value(u: u, x: 2), .finish(u: u)]
    )
    add(.max(1), late: true, [.forceFinish(u: u), .sendSubscription(u: u), .value(u: u, x: 2)])
    add(.max(1), late: true, [.forceFail(u: u, c: 1), .sendSubscription(u: u), .value(u: u, x: 2)])
    // A second `receive(subscription:)`: before any value, after a value, after the completion.
    add(
      .max(2),
      [.sendSubscription(u: u), .value(u: u, x: 1), .request(d: 0, .max(1)), .value(u: u, x: 2)]
    )
    add(
      .unlimited,
      [.value(u: u, x: 1), .sendSubscription(u: u), .value(u: u, x: 2), .finish(u: u)]
    )
    add(.unlimited, [.finish(u: u), .sendSubscription(u: u)])
    add(.max(1), [.cancel(d: 0), .sendSubscription(u: u)])
    // Values beyond demand: with no demand at all, and one more than requested.
    add(nil, [.forceValue(u: u, x: 1), .request(d: 0, .max(1)), .value(u: u, x: 2)])
    add(
      .max(1),
      [.value(u: u, x: 1), .forceValue(u: u, x: 2), .forceValue(u: u, x: 3), .finish(u: u)]
    )
    // A value, a second completion, after the completion.
    add(.unlimited, [.value(u: u, x: 1), .finish(u: u), .forceValue(u: u, x: 2)])
    add(.unlimited, [.fail(u: u, c: 1), .forceValue(u: u, x: 2)])
    add(.unlimited, [.finish(u: u), .forceFinish(u: u)])
    add(.unlimited, [.finish(u: u), .forceFail(u: u, c: 2)])
    // After a cancel.
    add(
      .unlimited,
      [.value(u: u, x: 1), .cancel(d: 0), .forceValue(u: u, x: 2), .forceFinish(u: u)]
    )
    return scripts
  }
}

/// Trace lines start with a channel letter and a space: `E` events (values, completions, requests,
/// returned demand, cancels, skipped steps), `D` descriptions (description, mirror, playground
/// description of each subscription the downstream sees), `L` life cycle (which objects are still
/// alive after each step), `T` a trap (the last line of a trace that trapped).
public enum Channel: String, Sendable, CaseIterable {
  case events = "E"
  case descriptions = "D"
  case lifecycle = "L"
  case trap = "T"
}

/// One difference between the two traces of a script, in one channel.
public struct Difference: Hashable, Sendable {
  /// The channel that differs.
  public var channel: Channel
  /// The first differing lines (nil when a trace has fewer lines in that channel).
  public var streamKit: String?
  public var openCombine: String?
  /// A short, argument-free key for grouping and shrinking: the channel plus the kind of the
  /// first differing lines, e.g. `E up0.request|down0.value`.
  public var signature: String
  /// Each trace up to the differing line, every channel (the whole trace when it has no such
  /// line): what an expected difference's condition may look at, so that it is about what
  /// happened before the difference, never about the whole script.
  public var streamKitBefore: [String] = []
  public var openCombineBefore: [String] = []
  /// The differing run of lines itself on each side (of the actor, or the channel), from
  /// `streamKit`/`openCombine` on: what the whole difference is, for a condition on its shape.
  public var streamKitHunk: [String] = []
  public var openCombineHunk: [String] = []

  /// How many lines of `streamKitBefore` start with `prefix`.
  public func streamKitCount(_ prefix: String) -> Int {
    streamKitBefore.count { $0.hasPrefix(prefix) }
  }

  /// How many lines of `openCombineBefore` start with `prefix`.
  public func openCombineCount(_ prefix: String) -> Int {
    openCombineBefore.count { $0.hasPrefix(prefix) }
  }
}

/// Comparing two traces.
public enum Compare {
  /// The lines of `trace` in `channel`, without the channel prefix.
  public static func lines(_ trace: [String], _ channel: Channel) -> [String] {
    let prefix = channel.rawValue + " "
    return trace.compactMap { $0.hasPrefix(prefix) ? String($0.dropFirst(prefix.count)) : nil }
  }

  /// Each downstream's `E downN.…` lines, downstream by downstream after the other lines, so
  /// the interleaving of deliveries to several downstreams is not compared.
  static func canonicalOrder(_ trace: [String]) -> [String] {
    func downstream(_ line: String) -> Int? {
      guard line.hasPrefix("E down") else { return nil }
      let digits = line.dropFirst(6).prefix { $0.isNumber }
      return Int(digits)
    }
    var others: [String] = []
    var perDownstream: [Int: [String]] = [:]
    for line in trace {
      if let k = downstream(line) {
        perDownstream[k, default: []].append(line)
      } else {
        others.append(line)
      }
    }
    return others + perDownstream.keys.sorted().flatMap { perDownstream[$0]! }
  }

  /// The first word of a line, which names what happened (`up0.request`, `down0.value`, …).
  static func kind(_ line: String?) -> String {
    guard let line else { return "(none)" }
    return String(line.split(separator: " ").first ?? "")
  }

  /// The per-channel differences between StreamKit's trace and OpenCombine's.
  ///
  /// With `severalDownstreams`, the order in which events reach different downstreams is not
  /// compared (Combine does not specify it, and OpenCombine's subjects keep their subscribers in a
  /// hashed set): each downstream's events are compared on their own.
  public static func differences(
    streamKit: [String],
    openCombine: [String],
    severalDownstreams: Bool = false
  ) -> [Difference] {
    var result: [Difference] = []
    // A trap is its own channel; when one side trapped, later channels are compared only up to
    // the trap, since everything after it is missing on that side.
    let skTrap = lines(streamKit, .trap).first
    let ocTrap = lines(openCombine, .trap).first
    // Cut each channel at the trap before reordering the deliveries to several downstreams, so
    // that lines from after the trap don't move in front of the cut.
    var streamKit = streamKit
    var openCombine = openCombine
    if severalDownstreams, (skTrap == nil) != (ocTrap == nil) {
      (streamKit, openCombine) = cutAtTrap(streamKit, openCombine)
    }
    // What came before a difference is read from each trace in the order it happened.
    let (streamKitInOrder, openCombineInOrder) = (streamKit, openCombine)
    if severalDownstreams {
      streamKit = canonicalOrder(streamKit)
      openCombine = canonicalOrder(openCombine)
    }
    if (skTrap == nil) != (ocTrap == nil) {
      result.append(
        Difference(
          channel: .trap,
          streamKit: skTrap,
          openCombine: ocTrap,
          signature: "T "
            + (skTrap == nil
              ? "OpenCombine traps: " + trapKey(ocTrap) : "StreamKit traps: " + trapKey(skTrap)),
          // A trap comes after everything else a trace shows.
          streamKitBefore: streamKit.filter { !$0.hasPrefix("T ") },
          openCombineBefore: openCombine.filter { !$0.hasPrefix("T ") }
        )
      )
    }
    // Both trapped: for the same reason, whatever the words (an unknown meaning is compared
    // with nothing).
    if let skTrap, let ocTrap {
      let (a, b) = (TrapMeaning.of(skTrap), TrapMeaning.of(ocTrap))
      // OpenCombine sometimes crashes without a message (a released object, a breakpoint);
      // StreamKit's traps always say why, so its unknown one is compared like any other.
      if a != b, b != TrapMeaning.unknown {
        result.append(
          Difference(
            channel: .trap,
            streamKit: skTrap,
            openCombine: ocTrap,
            signature: "T different traps: \(a) | \(b)",
            streamKitBefore: streamKit.filter { !$0.hasPrefix("T ") },
            openCombineBefore: openCombine.filter { !$0.hasPrefix("T ") }
          )
        )
      }
    }
    for channel in [Channel.events, .descriptions, .lifecycle] {
      var a = lines(streamKit, channel)
      var b = lines(openCombine, channel)
      // Both trapped while delivering to several downstreams: which ones got the event before
      // the trap depends on the (unspecified) delivery order, so only the other actors' events
      // are compared.
      if severalDownstreams, channel == .events, skTrap != nil, ocTrap != nil {
        a = a.filter { !$0.hasPrefix("down") }
        b = b.filter { !$0.hasPrefix("down") }
      }
      if (skTrap == nil) != (ocTrap == nil) {
        let n = min(a.count, b.count)
        a = Array(a.prefix(n))
        b = Array(b.prefix(n))
      }
      guard a != b else { continue }
      if channel == .events {
        result += eventDifferences(a, b, streamKitInOrder, openCombineInOrder)
        continue
      }
      // Life-cycle lines are one per step, so they are compared step by step; descriptions
      // line by line, as the events are.
      let inChannel: (String) -> Bool = { $0.hasPrefix(channel.rawValue + " ") }
      for (xs, ys) in channel == .lifecycle ? stepHunks(a, b) : hunks(a, b) {
        let (i, j) = (xs.lowerBound, ys.lowerBound)
        let x = i < a.count ? a[i] : nil
        let y = j < b.count ? b[j] : nil
        let signature =
          channel == .lifecycle ? "L " + lifecycleKey(x, y) : "D " + descriptionKey(x, y)
        let before = befores(streamKitInOrder, openCombineInOrder, xs, ys, inChannel)
        result.append(
          Difference(
            channel: channel,
            streamKit: x,
            openCombine: y,
            signature: signature,
            streamKitBefore: before.streamKit,
            openCombineBefore: before.openCombine,
            streamKitHunk: Array(a[xs]),
            openCombineHunk: Array(b[ys])
          )
        )
      }
    }
    return result
  }

  /// Where `x` and `y` start to differ, each time they do: the start of each run of lines that
  /// a longest common subsequence leaves out, in `x` and in `y`. The whole of both is compared:
  /// after a line only one side has, or lines that differ, the comparison goes on.
  static func hunks(_ x: [String], _ y: [String]) -> [(Range<Int>, Range<Int>)] {
    let n = x.count
    let m = y.count
    // common[i][j]: the length of a longest common subsequence of x[i...] and y[j...].
    var common = Array(repeating: Array(repeating: 0, count: m + 1), count: n + 1)
    for i in stride(from: n - 1, through: 0, by: -1) {
      for j in stride(from: m - 1, through: 0, by: -1) {
        common[i][j] =
          x[i] == y[j] ? common[i + 1][j + 1] + 1 : max(common[i + 1][j], common[i][j + 1])
      }
    }
    var result: [(Range<Int>, Range<Int>)] = []
    var start: (Int, Int)?
    var i = 0
    var j = 0
    while i < n || j < m {
      if i < n, j < m, x[i] == y[j] {
        if let (a, b) = start.take() { result.append((a..<i, b..<j)) }
        i += 1
        j += 1
        continue
      }
      if start == nil { start = (i, j) }
      if j >= m || (i < n && common[i + 1][j] >= common[i][j + 1]) { i += 1 } else { j += 1 }
    }
    if let (a, b) = start { result.append((a..<n, b..<m)) }
    return result
  }

  /// Where `x` and `y`, one line per step, start to differ, each time they do.
  static func stepHunks(_ x: [String], _ y: [String]) -> [(Range<Int>, Range<Int>)] {
    var result: [(Range<Int>, Range<Int>)] = []
    var start: Int?
    let n = max(x.count, y.count)
    for k in 0...n {
      let same = k == n || (k < x.count && k < y.count && x[k] == y[k])
      if !same, start == nil { start = k }
      if same, let s = start.take() {
        result.append((min(s, x.count)..<min(k, x.count), min(s, y.count)..<min(k, y.count)))
      }
    }
    return result
  }

  /// Both traces with each channel cut to the number of lines the shorter trace has in it
  /// (keeping the other channels' lines and the trap line).
  static func cutAtTrap(_ a: [String], _ b: [String]) -> ([String], [String]) {
    func cut(_ trace: [String], _ limits: [Character: Int]) -> [String] {
      var seen: [Character: Int] = [:]
      return trace.filter { line in
        guard let c = line.first, let limit = limits[c] else { return true }
        seen[c, default: 0] += 1
        return seen[c]! <= limit
      }
    }
    var limits: [Character: Int] = [:]
    for channel in [Channel.events, .descriptions, .lifecycle] {
      let c = Character(channel.rawValue)
      limits[c] = min(lines(a, channel).count, lines(b, channel).count)
    }
    return (cut(a, limits), cut(b, limits))
  }

  /// A trap's message, shortened: `trapped: Fatal error: request(.none): …` -> `request(.none)`.
  static func trapKey(_ line: String?) -> String {
    guard var text = line else { return "" }
    for prefix in ["trapped: ", "Fatal error: ", "Precondition failed: ", "Assertion failed: "] {
      if text.hasPrefix(prefix) { text = String(text.dropFirst(prefix.count)) }
    }
    return String(text.prefix(48))
  }

  /// The actor of an event line: `up0`, `down1`, `hook`, `print`, `subject`, …
  static func actor(_ line: String) -> String {
    String(line.prefix { $0 != "." && $0 != " " })
  }

  /// Events are compared actor by actor (each upstream's log, each downstream's, the hooks'), so
  /// one early difference (say, the order of subscriptions) does not hide a later one in another
  /// actor's log; when every actor's log agrees, the interleaving is compared.
  static func eventDifferences(
    _ a: [String],
    _ b: [String],
    _ streamKit: [String],
    _ openCombine: [String]
  ) -> [Difference] {
    var actors: [String] = []
    for line in a + b where !actors.contains(actor(line)) { actors.append(actor(line)) }
    var result: [Difference] = []
    for name in actors {
      let x = a.filter { actor($0) == name }
      let y = b.filter { actor($0) == name }
      guard x != y else { continue }
      let ofActor: (String) -> Bool = {
        $0.hasPrefix("E ") && actor(String($0.dropFirst(2))) == name
      }
      let (stepsX, stepsY) = (stepsOf(streamKit, ofActor), stepsOf(openCombine, ofActor))
      for (xs, ys) in hunks(x, y).flatMap({ splitByStep($0, $1, stepsX, stepsY) }) {
        let (i, j) = (xs.lowerBound, ys.lowerBound)
        let p = i < x.count ? x[i] : nil
        let q = j < y.count ? y[j] : nil
        let before = befores(streamKit, openCombine, xs, ys, ofActor)
        result.append(
          Difference(
            channel: .events,
            streamKit: p,
            openCombine: q,
            signature: "E \(name): \(kind(p))|\(kind(q))",
            streamKitBefore: before.streamKit,
            openCombineBefore: before.openCombine,
            streamKitHunk: Array(x[xs]),
            openCombineHunk: Array(y[ys])
          )
        )
      }
    }
    if result.isEmpty {
      var i = 0
      while i < a.count, i < b.count, a[i] == b[i] { i += 1 }
      let p = i < a.count ? a[i] : nil
      let q = i < b.count ? b[i] : nil
      let isEvent: (String) -> Bool = { $0.hasPrefix("E ") }
      result.append(
        Difference(
          channel: .events,
          streamKit: p,
          openCombine: q,
          signature: "E order: \(kind(p))|\(kind(q))",
          streamKitBefore: linesBefore(streamKit, i, isEvent),
          openCombineBefore: linesBefore(openCombine, i, isEvent)
        )
      )
    }
    return result
  }

  /// The lines of `trace` before its `n`th (from 0) line that `selected` picks: the whole trace
  /// when it has fewer.
  /// The step of each line that `selected` picks from `trace`, in order: how many life-cycle
  /// lines (one after each step) come before it.
  static func stepsOf(_ trace: [String], _ selected: (String) -> Bool) -> [Int] {
    var step = 0
    var steps: [Int] = []
    for line in trace {
      if line.hasPrefix("L ") {
        step += 1
      } else if selected(line) {
        steps.append(step)
      }
    }
    return steps
  }

  /// A differing run split into one run per step, so that differences from different steps
  /// that happen to be next to each other in an actor's log are judged one by one.
  static func splitByStep(
    _ xs: Range<Int>,
    _ ys: Range<Int>,
    _ stepsX: [Int],
    _ stepsY: [Int]
  ) -> [(Range<Int>, Range<Int>)] {
    func step(_ steps: [Int], _ k: Int) -> Int { k < steps.count ? steps[k] : .max }
    let steps = Set(xs.map { step(stepsX, $0) } + ys.map { step(stepsY, $0) }).sorted()
    guard steps.count > 1 else { return [(xs, ys)] }
    func part(_ range: Range<Int>, _ stepsOfSide: [Int], _ s: Int) -> Range<Int> {
      let inStep = range.filter { step(stepsOfSide, $0) == s }
      if let first = inStep.first, let last = inStep.last { return first..<(last + 1) }
      let next = range.first { step(stepsOfSide, $0) > s } ?? range.upperBound
      return next..<next
    }
    return steps.map { s in (part(xs, stepsX, s), part(ys, stepsY, s)) }
  }

  /// Each side's lines before a differing run that starts at line `i` of `x` (picked from
  /// `streamKit`) and line `j` of `y` (from `openCombine`). A side whose run is empty has no
  /// line of its own to cut at: it gets its lines up to the end of the step in which the other
  /// side's run began (steps end at the life-cycle lines, one per step, on both sides), so
  /// nothing from a later step counts as "before".
  static func befores(
    _ streamKit: [String],
    _ openCombine: [String],
    _ xs: Range<Int>,
    _ ys: Range<Int>,
    _ selected: (String) -> Bool
  ) -> (streamKit: [String], openCombine: [String]) {
    var a = linesBefore(streamKit, xs.lowerBound, selected)
    var b = linesBefore(openCombine, ys.lowerBound, selected)
    if xs.isEmpty, !ys.isEmpty { a = throughStep(streamKit, of: b) }
    if ys.isEmpty, !xs.isEmpty { b = throughStep(openCombine, of: a) }
    return (a, b)
  }

  /// The lines of `trace` up to the end of the step that `other` (the other side's lines
  /// before its run) is in.
  static func throughStep(_ trace: [String], of other: [String]) -> [String] {
    let steps = other.count { $0.hasPrefix("L ") }
    return linesBefore(trace, steps, { $0.hasPrefix("L ") })
  }

  static func linesBefore(_ trace: [String], _ n: Int, _ selected: (String) -> Bool) -> [String] {
    var seen = 0
    for (i, line) in trace.enumerated() where selected(line) {
      if seen == n { return Array(trace[..<i]) }
      seen += 1
    }
    return trace
  }

  /// For life-cycle lines `alive a=1 b=0 … state=…`: which objects differ and which way,
  /// e.g. `down0 released early (completed)`.
  static func lifecycleKey(_ x: String?, _ y: String?) -> String {
    guard let x, let y else { return "length" }
    func fields(_ s: String) -> [String: String] {
      var d: [String: String] = [:]
      for part in s.split(separator: " ") {
        let kv = part.split(separator: "=", maxSplits: 1)
        if kv.count == 2 { d[String(kv[0])] = String(kv[1]) }
      }
      return d
    }
    let a = fields(x)
    let b = fields(y)
    var keys: [String] = []
    for key in a.keys.sorted() where key != "state" && a[key] != b[key] {
      keys.append(
        key + (a[key] == "0" ? " released by StreamKit only" : " released by OpenCombine only")
      )
    }
    return keys.joined(separator: ", ") + " (" + (b["state"] ?? "?") + ")"
  }

  /// For description lines `down0.<what> <text>`: the part that differs, e.g. `down0.mirror`.
  static func descriptionKey(_ x: String?, _ y: String?) -> String {
    kind(x ?? y)
  }

  /// StreamKit's and OpenCombine's traces, side by side from the first line that differs
  /// (a few lines of context before it).
  public static func sideBySide(
    streamKit: [String],
    openCombine: [String],
    context: Int = 3,
    limit: Int = 30
  ) -> String {
    var i = 0
    while i < streamKit.count, i < openCombine.count, streamKit[i] == openCombine[i] { i += 1 }
    let start = max(0, i - context)
    let end = min(max(streamKit.count, openCombine.count), start + limit)
    let width = 58
    func pad(_ s: String) -> String {
      s.count >= width
        ? String(s.prefix(width - 1)) + "…" : s + String(repeating: " ", count: width - s.count)
    }
    var out = "    " + pad("StreamKit") + " | OpenCombine\n"
    if start < end {
      for j in start..<end {
        let a = j < streamKit.count ? streamKit[j] : ""
        let b = j < openCombine.count ? openCombine[j] : ""
        let mark = a == b ? "  " : "!!"
        out += "\(mark)  " + pad(a) + " | " + b + "\n"
      }
    }
    return out
  }
}
