// Writes the marble diagrams of the time, combining and error operators, each made by running
// the operator through StreamTesting's marble kit: a text diagram per operator between the
// `<!-- marbles:<section> -->` markers of Docs/SignalOperators.md, an SVG per operator in
// Docs/Diagrams/, the same diagrams as the SignalOperators DocC article `MarbleDiagrams` (with
// copies of the SVGs in the catalog), and each operator's diagram in its doc comment, between
// `/// <!-- marbles:<slug> -->` and `/// <!-- /marbles:<slug> -->` lines in the operator modules
// (SignalOperators and the other libraries' modules), with a copy of the SVG in the catalog of each
// module whose doc comments show it. Every diagram must have such a block in at least one doc
// comment, and every block must name a diagram. Run it from the package root:
//
//   swift run MarbleDiagrams           rewrite the diagrams (commit the result)
//   swift run MarbleDiagrams --check   exit 1 if a checked-in diagram differs from what the code makes

import Foundation

let checking = CommandLine.arguments.contains("--check")
let root = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
let guide = root.appendingPathComponent("Docs/SignalOperators.md")
let diagramsDirectory = root.appendingPathComponent("Docs/Diagrams")
let catalog = root.appendingPathComponent("Sources/SignalOperators/SignalOperators.docc")
/// The modules whose doc comments may show diagrams: Combine's operators and the other
/// libraries' operators built on them.
let operatorModules = [
  "SignalOperators", "StreamCombineExt", "StreamConbini", "StreamSnail", "StreamSwiftySignals",
]

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

// The doc comments.
let bySlug = Dictionary(uniqueKeysWithValues: diagrams.map { ($0.slug, $0) })
var placed: Set<String> = []
for module in operatorModules {
  var placedHere: Set<String> = []
  for url in swiftFiles(in: root.appendingPathComponent("Sources/\(module)")) {
    guard let source = try? String(contentsOf: url, encoding: .utf8),
      source.contains("<!-- marbles:")
    else { continue }
    let name = url.path.replacingOccurrences(of: root.path + "/", with: "")
    switch docCommentBlocks(in: source, bySlug: bySlug) {
    case .success(let (updated, slugs)):
      placedHere.formUnion(slugs)
      outputs.append((url, updated))
    case .failure(let problem):
      print("MarbleDiagrams: \(name): \(problem.message)")
      exit(2)
    }
  }
  placed.formUnion(placedHere)
  // The catalog of a module other than SignalOperators (whose catalog has every SVG, for the
  // article) needs a copy of each diagram its doc comments show.
  if module != "SignalOperators" {
    let moduleCatalog = root.appendingPathComponent("Sources/\(module)/\(module).docc")
    for slug in placedHere.sorted() {
      guard let diagram = bySlug[slug] else { continue }
      outputs.append((moduleCatalog.appendingPathComponent("marble-\(slug).svg"), svg(diagram)))
    }
  }
}
let unplaced = diagrams.map(\.slug).filter { !placed.contains($0) }
guard unplaced.isEmpty else {
  print("MarbleDiagrams: no doc comment in the operator modules shows these diagrams:")
  for slug in unplaced {
    print("  \(slug): add `/// <!-- marbles:\(slug) -->` and `/// <!-- /marbles:\(slug) -->` lines")
  }
  exit(2)
}

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

/// A generator error, with what to do about it.
struct Problem: Error {
  var message: String
}

/// The `.swift` files under `directory`, sorted by path.
func swiftFiles(in directory: URL) -> [URL] {
  let walker = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: nil)
  let urls = (walker?.allObjects as? [URL]) ?? []
  return urls.filter { $0.pathExtension == "swift" }.sorted { $0.path < $1.path }
}

/// `source` with the body of every `<!-- marbles:<slug> -->` … `<!-- /marbles:<slug> -->`
/// block of its doc comments replaced by that diagram, and the slugs it found.
func docCommentBlocks(
  in source: String,
  bySlug: [String: Diagram]
) -> Result<(String, Set<String>), Problem> {
  let open = "<!-- marbles:"
  let lines = source.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
  var result: [String] = []
  var slugs: Set<String> = []
  var index = 0
  while index < lines.count {
    let line = lines[index]
    result.append(line)
    index += 1
    guard let start = line.range(of: open) else { continue }
    let prefix = String(line[..<start.lowerBound])
    guard prefix.trimmingCharacters(in: .whitespaces).hasPrefix("///"),
      line.hasSuffix(" -->")
    else {
      return .failure(
        Problem(message: "line \(index): a marker must be a `/// <!-- marbles:<slug> -->` line")
      )
    }
    let slug = String(line[start.upperBound...].dropLast(" -->".count))
    guard let diagram = bySlug[slug] else {
      return .failure(Problem(message: "line \(index): no diagram is called `\(slug)`"))
    }
    let close = prefix + "<!-- /marbles:\(slug) -->"
    guard let end = lines[index...].firstIndex(of: close) else {
      return .failure(Problem(message: "line \(index): no `\(close)` line follows"))
    }
    let bare = prefix.hasSuffix(" ") ? String(prefix.dropLast()) : prefix
    result += docComment(diagram, width: 100 - prefix.count).map { $0.isEmpty ? bare : prefix + $0 }
    result.append(close)
    slugs.insert(slug)
    index = end + 1
  }
  return .success((result.joined(separator: "\n"), slugs))
}

/// A diagram as doc-comment Markdown, its caption wrapped to `width` columns: a caption, the
/// text diagram and the SVG from the SignalOperators catalog.
func docComment(_ diagram: Diagram, width: Int) -> [String] {
  let caption =
    "Marble diagram of `\(diagram.title)`, made by running it (a character is a tick of "
    + "virtual time; `|` finished, `#` failed, `(ab)` one instant):"
  return wrapped(caption, width: width) + ["", "```text"] + rows(diagram) + [
    "```",
    "",
    "![Marble diagram of \(diagram.title)](marble-\(diagram.slug))",
  ]
}

/// `text` in lines of at most `width` columns, broken at spaces outside code spans.
func wrapped(_ text: String, width: Int) -> [String] {
  var words: [String] = []
  var word = ""
  var inCode = false
  for character in text {
    if character == "`" { inCode.toggle() }
    if character == " " && !inCode {
      words.append(word)
      word = ""
    } else {
      word.append(character)
    }
  }
  words.append(word)
  var lines: [String] = []
  var line = ""
  for word in words where !word.isEmpty {
    if line.isEmpty {
      line = word
    } else if line.count + 1 + word.count <= width {
      line += " " + word
    } else {
      lines.append(line)
      line = word
    }
  }
  if !line.isEmpty { lines.append(line) }
  return lines
}

/// The text diagram's lines: each label padded to the same width, then its marbles.
func rows(_ diagram: Diagram) -> [String] {
  let width = diagram.lines.map(\.label.count).max() ?? 0
  return diagram.lines.map { line in
    line.label.isEmpty
      ? String(repeating: " ", count: width + 2) + line.marbles
      : line.label.padding(toLength: width + 2, withPad: " ", startingAt: 0) + line.marbles
  }
}

/// A diagram as Markdown: its title, the text diagram and the SVG.
func markdown(_ diagram: Diagram, image: String? = nil) -> String {
  """
  `\(diagram.title)`

  ```text
  \(rows(diagram).joined(separator: "\n"))
  ```

  ![Marble diagram of \(diagram.title)](\(image ?? "Diagrams/\(diagram.slug).svg"))

  """
}

/// The DocC article that shows every diagram.
func article(_ diagrams: [Diagram]) -> String {
  let sections = [
    ("time", "Time operators"), ("combining", "Combining operators"),
    ("selecting", "Selecting by another publisher"), ("errors", "Errors"),
    ("filtering", "Replacing a failure"), ("seeds", "Snail's and SwiftySignals' operators"),
    ("conbini", "Conbini's delayed retry"), ("combineext", "CombineExt's operators"),
  ]
  var text = """
    # Marble Diagrams

    What the time, combining and error operators do, drawn by running them.

    ## Overview

    Each diagram is made by running the operator through StreamTesting's marble kit on a
    `TestScheduler` (`swift run MarbleDiagrams` writes them; CI fails when they differ from what
    the code produces). Time runs left to right, one character per tick of virtual time: `-` is
    a tick with nothing, a letter a value, `|` the finish, `#` a failure, and `(ab)` events at
    one instant. Inner publishers (`x`, `y`, `z`), fallbacks, appended and prepended
    publishers and retried inputs are cold: they start when subscribed; the other inputs are
    hot. Each operator's own page shows its diagram too.

    """
  for (section, title) in sections {
    let members = diagrams.filter { $0.section == section }
    guard !members.isEmpty else { continue }
    text += "\n## \(title)\n\n"
    text += members.map { markdown($0, image: "marble-\($0.slug).svg") }.joined(separator: "\n")
  }
  return text
}
