import Foundation
import StreamCore
import StreamTesting

/// Draws a diagram: one timeline per line, time left to right, a circle per value, a bar for
/// the finish and a cross for a failure; a group of events at one frame shares one pill.
func svg(_ diagram: Diagram) -> String {
  let frameWidth = 22
  let rowHeight = 40
  let labelWidth = 70
  let timelines = diagram.lines.filter { !$0.label.isEmpty }
  let captions = diagram.lines.filter { $0.label.isEmpty }.map(\.marbles)
  let frames = timelines.map { line in line.marbles.filter { $0 != " " }.count }.max() ?? 0
  let width = labelWidth + (frames + 2) * frameWidth
  let height = 24 + timelines.count * rowHeight + captions.count * 20
  var parts: [String] = [
    "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(width)\" height=\"\(height)\" "
      + "viewBox=\"0 0 \(width) \(height)\" font-family=\"Menlo, monospace\" font-size=\"12\">",
    "<title>\(escape(diagram.title))</title>",
    "<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>",
    "<text x=\"8\" y=\"16\" fill=\"#333333\">\(escape(diagram.title))</text>",
  ]
  for (row, line) in timelines.enumerated() {
    let y = 24 + row * rowHeight + rowHeight / 2
    let isOutput = row == timelines.count - 1
    let stroke = isOutput ? "#1f6feb" : "#555555"
    parts.append(
      "<text x=\"8\" y=\"\(y + 4)\" fill=\"#333333\">\(escape(line.label))</text>"
    )
    parts.append(
      "<line x1=\"\(labelWidth)\" y1=\"\(y)\" x2=\"\(width - 8)\" y2=\"\(y)\" "
        + "stroke=\"\(stroke)\" stroke-width=\"1.5\"/>"
    )
    for event in events(of: line.marbles) {
      let x = labelWidth + event.frame * frameWidth + frameWidth / 2
      parts.append(contentsOf: draw(event.symbols, x: x, y: y, stroke: stroke))
    }
  }
  for (index, caption) in captions.enumerated() {
    let y = 24 + timelines.count * rowHeight + index * 20 + 12
    parts.append("<text x=\"\(labelWidth)\" y=\"\(y)\" fill=\"#555555\">\(escape(caption))</text>")
  }
  parts.append("</svg>")
  return parts.joined(separator: "\n") + "\n"
}

/// The events of a rendered line, grouped by frame.
private func events(of marbles: String) -> [(frame: Int, symbols: [Character])] {
  struct Anything: Error {}
  guard
    let timeline = try? MarbleTimeline<String, Anything>(parsing: marbles, error: Anything())
  else { return [] }
  var result: [(frame: Int, symbols: [Character])] = []
  for entry in timeline.entries {
    let symbol: Character
    switch entry.event {
    case .value(let value): symbol = value.first ?? "?"
    case .completion(.finished): symbol = "|"
    case .completion(.failure): symbol = "#"
    }
    if let last = result.last, last.frame == entry.frame {
      result[result.count - 1].symbols.append(symbol)
    } else {
      result.append((entry.frame, [symbol]))
    }
  }
  return result
}

private func draw(_ symbols: [Character], x: Int, y: Int, stroke: String) -> [String] {
  if symbols.count == 1, let symbol = symbols.first {
    switch symbol {
    case "|":
      return [
        "<line x1=\"\(x)\" y1=\"\(y - 10)\" x2=\"\(x)\" y2=\"\(y + 10)\" stroke=\"\(stroke)\" stroke-width=\"2.5\"/>"
      ]
    case "#":
      return [
        "<line x1=\"\(x - 7)\" y1=\"\(y - 7)\" x2=\"\(x + 7)\" y2=\"\(y + 7)\" stroke=\"#cf222e\" stroke-width=\"2.5\"/>",
        "<line x1=\"\(x - 7)\" y1=\"\(y + 7)\" x2=\"\(x + 7)\" y2=\"\(y - 7)\" stroke=\"#cf222e\" stroke-width=\"2.5\"/>",
      ]
    default:
      return [
        "<circle cx=\"\(x)\" cy=\"\(y)\" r=\"9\" fill=\"#ffffff\" stroke=\"\(stroke)\" stroke-width=\"1.5\"/>",
        "<text x=\"\(x)\" y=\"\(y + 4)\" text-anchor=\"middle\" fill=\"#111111\">\(escape(String(symbol)))</text>",
      ]
    }
  }
  let text = String(symbols)
  let width = 10 + text.count * 8
  return [
    "<rect x=\"\(x - 10)\" y=\"\(y - 10)\" width=\"\(width)\" height=\"20\" rx=\"10\" fill=\"#ffffff\" stroke=\"\(stroke)\" stroke-width=\"1.5\"/>",
    "<text x=\"\(x - 5)\" y=\"\(y + 4)\" fill=\"#111111\">\(escape(text))</text>",
  ]
}

private func escape(_ text: String) -> String {
  text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
    .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
}
