import Testing

/// Compares what a doc sample printed, in the child process of an exit test, with the lines its
/// `// prints` comments declare (see `.ci/samples.py`). Trailing spaces are ignored, since
/// `print("a", "")` and a comment `"a "` are hard to tell apart by eye.
func expectPrinted(
  _ result: ExitTest.Result?,
  _ expected: [String],
  sample document: String,
  line: Int
) {
  guard let result else { return }  // `#expect(processExitsWith:)` has recorded why
  let printed = String(decoding: result.standardOutputContent, as: UTF8.self)
  var lines = printed.split(separator: "\n", omittingEmptySubsequences: false).map(trimmed)
  if lines.last == "" { lines.removeLast() }
  let declared = expected.map { trimmed(Substring($0)) }
  guard lines != declared else { return }
  Issue.record(
    """
    \(document):\(line): the sample printed what its `// prints` comments don't say.
    Declared (\(declared.count) lines):
    \(declared.map { "  | \($0)" }.joined(separator: "\n"))
    Printed (\(lines.count) lines):
    \(lines.map { "  | \($0)" }.joined(separator: "\n"))
    """,
    sourceLocation: SourceLocation(
      fileID: "DocSamplesTests/\(document)",
      filePath: document,
      line: line,
      column: 1
    )
  )
}

private func trimmed(_ line: Substring) -> String {
  var line = line
  while let last = line.last, last == " " || last == "\t" || last == "\r" { line.removeLast() }
  return String(line)
}
