// Writes the marble diagrams of the time, combining and error operators, each made by running
// the operator through StreamTesting's marble kit: a text diagram per operator between the
// `<!-- marbles:<section> -->` markers of Docs/SignalOperators.md, an SVG per operator in
// Docs/Diagrams/, and the same diagrams as the SignalOperators DocC article `MarbleDiagrams`
// (with copies of the SVGs in the catalog). Run it from the package root:
//
//   swift run MarbleDiagrams           rewrite the diagrams (commit the result)
//   swift run MarbleDiagrams --check   exit 1 if a checked-in diagram differs from what the code makes

import Foundation

let checking = CommandLine.arguments.contains("--check")
let root = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
let guide = root.appendingPathComponent("Docs/SignalOperators.md")
let diagramsDirectory = root.appendingPathComponent("Docs/Diagrams")
let catalog = root.appendingPathComponent("Sources/SignalOperators/SignalOperators.docc")

let diagrams = makeDiagrams()
var outputs: [(URL, String)] = []

// The SVGs, for GitHub and for DocC.
for diagram in diagrams {
  let picture = svg(diagram)
  outputs.append((diagramsDirectory.appendingPathComponent("\(diagram.slug).svg"), picture))
  outputs.append(
    (catalog.appendingPathComponent("marble-\(diagram.slug).svg"), picture)
  )
}

// The DocC article.
outputs.append((catalog.appendingPathComponent("MarbleDiagrams.md"), article(diagrams)))

// The guide's generated blocks.
guard var text = try? String(contentsOf: guide, encoding: .utf8) else {
  print("MarbleDiagrams: cannot read \(guide.path); run it from the package root")
  exit(2)
}
for section in Set(diagrams.map(\.section)).sorted() {
  let open = "<!-- marbles:\(section) -->"
  let close = "<!-- /marbles:\(section) -->"
  guard let start = text.range(of: open), let end = text.range(of: close),
    start.upperBound <= end.lowerBound
  else {
    print("MarbleDiagrams: \(guide.path) has no \(open) … \(close) block")
    exit(2)
  }
  let body = diagrams.filter { $0.section == section }.map { markdown($0) }
    .joined(separator: "\n")
  text.replaceSubrange(start.upperBound..<end.lowerBound, with: "\n" + body)
}
outputs.append((guide, text))

var stale: [String] = []
for (url, content) in outputs {
  let current = try? String(contentsOf: url, encoding: .utf8)
  guard current != content else { continue }
  let name = url.path.replacingOccurrences(of: root.path + "/", with: "")
  if checking {
    stale.append(name)
  } else {
    try? FileManager.default.createDirectory(
      at: url.deletingLastPathComponent(),
      withIntermediateDirectories: true
    )
    do {
      try content.write(to: url, atomically: true, encoding: .utf8)
      print("wrote \(name)")
    } catch {
      print("MarbleDiagrams: cannot write \(name): \(error)")
      exit(2)
    }
  }
}
if checking {
  guard stale.isEmpty else {
    print("MarbleDiagrams --check: these differ from what the operators produce:")
    for name in stale { print("  \(name)") }
    print("Run `swift run MarbleDiagrams` and commit the result.")
    exit(1)
  }
  print("MarbleDiagrams --check: \(diagrams.count) diagrams are up to date")
}

/// A diagram as Markdown: its title, the text diagram and the SVG.
func markdown(_ diagram: Diagram, image: String? = nil) -> String {
  let width = diagram.lines.map(\.label.count).max() ?? 0
  let rows = diagram.lines.map { line in
    line.label.isEmpty
      ? String(repeating: " ", count: width + 2) + line.marbles
      : line.label.padding(toLength: width + 2, withPad: " ", startingAt: 0) + line.marbles
  }
  return """
    `\(diagram.title)`

    ```text
    \(rows.joined(separator: "\n"))
    ```

    ![Marble diagram of \(diagram.title)](\(image ?? "Diagrams/\(diagram.slug).svg"))

    """
}

/// The DocC article that shows every diagram.
func article(_ diagrams: [Diagram]) -> String {
  let sections = [
    ("time", "Time operators"), ("combining", "Combining operators"), ("errors", "Retrying"),
  ]
  var text = """
    # Marble Diagrams

    What the time, combining and retry operators do, drawn by running them.

    ## Overview

    Each diagram is made by running the operator through StreamTesting's marble kit on a
    `TestScheduler` (`swift run MarbleDiagrams` writes them; CI fails when they differ from what
    the code produces). Time runs left to right, one character per tick of virtual time: `-` is
    a tick with nothing, a letter a value, `|` the finish, `#` a failure, and `(ab)` events at
    one instant. Inner publishers (`x`, `y`) and retried inputs are cold: they start when
    subscribed.

    """
  for (section, title) in sections {
    let members = diagrams.filter { $0.section == section }
    guard !members.isEmpty else { continue }
    text += "\n## \(title)\n\n"
    text += members.map { markdown($0, image: "marble-\($0.slug).svg") }.joined(separator: "\n")
  }
  return text
}
