// The differences the oracle expects: INTENDED ones (deliberate, documented for users; reasons in
// Differential/INTENDED.md under the same id) and KNOWN ones (bugs not fixed yet; each with a
// one-line description and a class). A difference that matches neither fails the run.
//
// When a KNOWN difference is fixed, delete its entry: the run reports entries that matched nothing.

/// The classes of issue 15.
public enum DifferenceClass: String, Sendable, CaseIterable {
  case demandPattern = "demand pattern"
  case misbehavingUpstream = "misbehaving upstream"
  case descriptionMirror = "description+mirror"
  case lifecycle = "life cycle"
  case other = "other"
}

/// One expected difference.
public struct Expectation: Sendable {
  /// A short id (INTENDED.md has a section per intended id).
  public var id: String
  /// The operators it applies to: exact names, or `*` for all, or a prefix ending in `*`.
  public var operators: [String]
  /// A substring of the difference's signature (see `Difference.signature`).
  public var signature: String
  /// Only for misbehaving scripts (true), only for well-behaved ones (false), or both (nil).
  public var misbehaving: Bool?
  public var kind: DifferenceClass
  public var intended: Bool
  public var summary: String
  /// A finer test of the difference than `signature` (which must still be contained).
  public var test: (@Sendable (Difference, Script) -> Bool)?

  public init(
    _ id: String,
    _ operators: [String],
    _ signature: String,
    misbehaving: Bool? = nil,
    _ kind: DifferenceClass,
    intended: Bool = false,
    _ summary: String,
    test: (@Sendable (Difference, Script) -> Bool)? = nil
  ) {
    self.test = test
    self.id = id
    self.operators = operators
    self.signature = signature
    self.misbehaving = misbehaving
    self.kind = kind
    self.intended = intended
    self.summary = summary
  }

  /// Whether this entry covers `difference`, seen running `script`.
  public func matches(_ difference: Difference, in script: Script) -> Bool {
    if let misbehaving, misbehaving != script.isMisbehaving { return false }
    guard difference.signature.contains(signature) else { return false }
    if let test, !test(difference, script) { return false }
    return operators.contains { pattern in
      if pattern == "*" { return true }
      if pattern.hasSuffix("*") { return script.op.hasPrefix(pattern.dropLast()) }
      return pattern == script.op
    }
  }
}

/// The class a difference falls in when no entry names it.
public func defaultClass(of difference: Difference, in script: Script) -> DifferenceClass {
  switch difference.channel {
  case .descriptions: return .descriptionMirror
  case .lifecycle: return .lifecycle
  case _ where script.isMisbehaving: return .misbehavingUpstream
  case .trap: return .other
  case .events:
    let s = difference.signature
    if s.contains("request") || s.contains("return") || s.contains("cancel") {
      return .demandPattern
    }
    return .other
  }
}

/// Every expected difference, intended ones first.
public let expectations: [Expectation] = intendedDifferences + knownDifferences

/// Reads the mirror lines of a trace (`down0.final.mirror [label: value, …]`).
public enum MirrorText {
  /// The children of a mirror line as (label, value) pairs, split at the top-level commas.
  public static func children(_ line: String) -> [(label: String, value: String)]? {
    guard let open = line.firstIndex(of: "["), line.hasSuffix("]") else { return nil }
    let body = line[line.index(after: open)..<line.index(before: line.endIndex)]
    var parts: [String] = []
    var depth = 0
    var current = ""
    var i = body.startIndex
    while i < body.endIndex {
      let c = body[i]
      if "([<".contains(c) { depth += 1 }
      if ")]>".contains(c) { depth -= 1 }
      if c == ",", depth == 0, body[body.index(after: i)...].hasPrefix(" ") {
        parts.append(current)
        current = ""
        i = body.index(i, offsetBy: 2)
        continue
      }
      current.append(c)
      i = body.index(after: i)
    }
    if !current.isEmpty { parts.append(current) }
    return parts.map { part in
      guard let colon = part.firstRange(of: ": ") else { return (label: "", value: part) }
      return (label: String(part[..<colon.lowerBound]), value: String(part[colon.upperBound...]))
    }
  }

  /// Whether the two mirrors have the same labels, and each value that differs is what an ended
  /// subscription shows in StreamKit: `nil` (a part it released), `terminal`, no (`max(0)`)
  /// demand or no (`[]`) values.
  public static func onlyReleased(streamKit: String, openCombine: String) -> Bool {
    guard let a = children(streamKit), let b = children(openCombine), a.count == b.count else {
      return false
    }
    for (x, y) in zip(a, b) {
      guard x.label == y.label else { return false }
      if x.value == y.value { continue }
      guard ["nil", "terminal", "max(0)", "[]"].contains(x.value) else { return false }
    }
    return true
  }
}
