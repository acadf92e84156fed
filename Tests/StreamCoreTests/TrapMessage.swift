import Testing

/// Checks that an exit test's child process trapped with `message`: a crash test that accepted
/// any failure would also pass on an unrelated force-unwrap or out-of-range index.
///
/// Swift writes a trap's message to standard error (`Fatal error: <message>`); `result` must
/// come from `#expect(processExitsWith:observing: [\.standardErrorContent])`.
func expectTrap(
  _ result: ExitTest.Result?,
  _ message: String,
  sourceLocation: SourceLocation = #_sourceLocation
) {
  guard let result else { return }  // `#expect(processExitsWith:)` has recorded why
  let standardError = String(decoding: result.standardErrorContent, as: UTF8.self)
  #expect(
    standardError.contains(message),
    "the process trapped, but not with \"\(message)\"; it wrote: \(standardError)",
    sourceLocation: sourceLocation
  )
}
