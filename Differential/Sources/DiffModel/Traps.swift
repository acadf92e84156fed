// What a trap means, whichever library's words say it: both libraries trap on the same misuses,
// with different messages. The oracle compares meanings, so a trap for the wrong reason is a
// difference even when both sides trap.

/// The meaning of a trap line.
public enum TrapMeaning {
  /// (meaning, words that identify it in either library's message), first match wins.
  static let table: [(meaning: String, patterns: [String])] = [
    (
      "request(.none)",
      [
        "request(.none): a subscriber must request a demand greater than zero",
        "API Violation: demand must not be zero",
      ]
    ),
    (
      "a value before the subscription",
      [
        "the upstream sent a value before its subscription",
        "Received value before receiving subscription",
      ]
    ),
    (
      // OpenCombine's `switchToLatest` says only "Unexpected completion" for a child's
      // completion before its subscription, the one place the oracle sees it.
      "a completion before the subscription",
      [
        "the upstream sent a completion before its subscription",
        "completed before sending its subscription",
        "Received completion before receiving subscription",
        "Unexpected completion",
      ]
    ),
    (
      // OpenCombine's demand arithmetic traps where the value beyond demand takes it below 0.
      "a value beyond demand",
      [
        "sent a value beyond the subscriber's demand",
        "sent a value beyond the demand requested from it",
        "demand cannot be negative",
      ]
    ),
    ("assertNoFailure's failure", ["oracle: Unexpected failure: ", "oracle: E"]),
    (
      "an unowned reference read after its release",
      ["Attempted to read an unowned reference but object"]
    ),
  ]

  /// The meaning of a trap without a message (a crash, say): it is compared with nothing.
  public static let unknown = "unknown (no message)"

  /// The meaning of `line` (a `T trapped: …` line without its channel), `none` when nothing
  /// trapped, or `unclassified: …` with the message when the table doesn't know it.
  public static func of(_ line: String?) -> String {
    guard let line else { return "none" }
    if line.hasSuffix("(no message)") { return unknown }
    for entry in table where entry.patterns.contains(where: { line.contains($0) }) {
      return entry.meaning
    }
    return "unclassified: " + Compare.trapKey(line)
  }
}
