public import StreamCore

/// A marble line parsed into events at frames: what a publisher sends, and when.
///
/// ```swift
/// let line = try MarbleTimeline<String, Never>(parsing: "-a-(bc)-|")
/// line.entries.map(\.frame)  // [1, 3, 3, 8]
/// line.rendered()  // "-a-(bc)-|"
/// ```
///
/// The marble language (see "Marble tests" in `Docs/StreamTesting.md`):
///
/// | Mark | Meaning |
/// |---|---|
/// | `-` | one frame in which nothing happens |
/// | a letter, digit or other character | one value, looked up in `values` (or the character itself for `String` and `Character` outputs) |
/// | `\|` | the publisher finishes |
/// | `#` | the publisher fails with the given error |
/// | `^` | a hot publisher's subscription point: frame 0 (events before it have negative frames) |
/// | `(ab)` | several events in the frame of `(` |
/// | space | ignored, for alignment |
///
/// Every other character, including `(` and `)` and the characters inside a group, takes one
/// frame, so that a character's column is its time and lines written one above the other stay
/// aligned: in `-(ab)-c`, `a` and `b` are at frame 1 and `c` at frame 6.
///
/// > Thread safety: A value type; it is `Sendable` when `Output` is.
public struct MarbleTimeline<Output, Failure: Error> {
  /// What happens at one frame of a marble line.
  ///
  /// ```swift
  /// let line = try MarbleTimeline<String, Never>(parsing: "-a|")
  /// line.entries.map(\.event)  // [.value("a"), .completion(.finished)]
  /// ```
  ///
  /// > Thread safety: A value type; it is `Sendable` when `Output` is.
  public enum Event {
    /// The publisher sends this value.
    case value(Output)

    /// The publisher finishes or fails.
    case completion(Subscribers.Completion<Failure>)
  }

  /// One event and its frame.
  ///
  /// ```swift
  /// let line = MarbleTimeline<Int, Never>(entries: [.init(frame: 2, event: .value(7))])
  /// line.rendered()  // "--7"
  /// ```
  ///
  /// > Thread safety: A value type; it is `Sendable` when `Output` is.
  public struct Entry {
    /// The frame of the event, counted from the line's start or, for a hot line, from `^`.
    public var frame: Int

    /// What happens.
    public var event: Event

    /// Creates an entry.
    ///
    /// > Thread safety: A value type; use it from any thread.
    ///
    /// - Parameters:
    ///   - frame: The frame of the event.
    ///   - event: What happens.
    public init(frame: Int, event: Event) {
      self.frame = frame
      self.event = event
    }
  }

  /// The events, in order of frame and, within a frame, as written.
  public var entries: [Entry]

  /// Whether the line marks a subscription point with `^`; its entries' frames then count from
  /// it.
  public var hasSubscriptionPoint: Bool

  /// Creates a timeline from entries, which must be sorted by frame.
  ///
  /// > Thread safety: A value type; use it from any thread.
  ///
  /// - Parameters:
  ///   - entries: The events, sorted by frame.
  ///   - hasSubscriptionPoint: Whether the frames count from a hot line's `^`.
  public init(entries: [Entry], hasSubscriptionPoint: Bool = false) {
    self.entries = entries
    self.hasSubscriptionPoint = hasSubscriptionPoint
  }

  /// Parses a marble line.
  ///
  /// ```swift
  /// let line = try MarbleTimeline<Int, TestError>(
  ///   parsing: "-a-#", values: ["a": 1], error: TestError())
  /// ```
  ///
  /// A character that is not a mark is a value: `values[character]`, or, when `values` has no
  /// entry for it and `Output` is `String` or `Character`, the character itself.
  ///
  /// > Thread safety: A pure function; call it from any thread.
  ///
  /// - Parameters:
  ///   - marbles: The marble line.
  ///   - values: The value each character stands for.
  ///   - error: The error `#` stands for; without one, `#` is a syntax error.
  /// - Throws: ``MarbleSyntaxError`` for a malformed line, a character with no value, `#`
  ///   without an error, or an event after the completion.
  public init(
    parsing marbles: String,
    values: [Character: Output] = [:],
    error: Failure? = nil
  ) throws(MarbleSyntaxError) {
    var entries: [Entry] = []
    var caret: Int?
    var completed = false
    for token in try MarbleLexer.tokens(marbles) {
      if token.symbol == "^" {
        guard caret == nil else {
          throw MarbleSyntaxError(marbles, token.column, "a second subscription point `^`")
        }
        caret = token.frame
        continue
      }
      guard !completed else {
        throw MarbleSyntaxError(marbles, token.column, "an event after the completion")
      }
      let event: Event
      switch token.symbol {
      case "|":
        event = .completion(.finished)
        completed = true
      case "#":
        guard let error else {
          throw MarbleSyntaxError(marbles, token.column, "`#` needs an error (pass `error:`)")
        }
        event = .completion(.failure(error))
        completed = true
      case "!":
        throw MarbleSyntaxError(marbles, token.column, "`!` belongs in a subscription line")
      default:
        guard let value = values[token.symbol] ?? Self.literal(token.symbol) else {
          throw MarbleSyntaxError(
            marbles,
            token.column,
            "no value for `\(token.symbol)` (add it to `values:`)"
          )
        }
        event = .value(value)
      }
      entries.append(Entry(frame: token.frame, event: event))
    }
    if let caret {
      for index in entries.indices {
        entries[index].frame -= caret
      }
    }
    self.init(entries: entries, hasSubscriptionPoint: caret != nil)
  }

  /// The character itself as a value, when `Output` is `String` or `Character`.
  private static func literal(_ symbol: Character) -> Output? {
    (String(symbol) as? Output) ?? (symbol as? Output)
  }

  /// Renders the line as marbles, showing each value as `symbol(value)`.
  ///
  /// ```swift
  /// timeline.rendered { $0 == 1 ? "a" : "?" }
  /// ```
  ///
  /// Frames before 0 are left out. Events at one frame are grouped as `(ab)`; a group takes
  /// one frame per character, so an event due inside the span of the group before it cannot
  /// keep its column, and is written right after the group.
  ///
  /// > Thread safety: A pure function; call it from any thread.
  ///
  /// - Parameter symbol: The character that stands for a value.
  /// - Returns: The marble line, such as `"-a-(b|)"`.
  public func rendered(symbol: (Output) -> Character) -> String {
    MarbleLexer.render(
      entries.filter { $0.frame >= 0 }.map { entry -> (Int, Character) in
        switch entry.event {
        case .value(let value): (entry.frame, symbol(value))
        case .completion(.finished): (entry.frame, "|")
        case .completion(.failure): (entry.frame, "#")
        }
      }
    )
  }
}

extension MarbleTimeline where Output: Equatable {
  /// Renders the line as marbles, writing each value as the character `values` maps to it.
  ///
  /// ```swift
  /// let line = try MarbleTimeline<Int, Never>(parsing: "-a-b|", values: ["a": 1, "b": 2])
  /// line.rendered(values: ["a": 1, "b": 2])  // "-a-b|"
  /// ```
  ///
  /// A value with no character in `values` is written as itself when its description is one
  /// character that is not a mark, and as `?` otherwise.
  ///
  /// > Thread safety: A pure function; call it from any thread.
  ///
  /// - Parameter values: The value each character stands for.
  /// - Returns: The marble line.
  public func rendered(values: [Character: Output] = [:]) -> String {
    rendered { MarbleLexer.symbol(for: $0, in: values) }
  }
}

extension MarbleTimeline: Sendable where Output: Sendable {}
extension MarbleTimeline.Entry: Sendable where Output: Sendable {}
extension MarbleTimeline.Event: Sendable where Output: Sendable {}
extension MarbleTimeline: Equatable where Output: Equatable, Failure: Equatable {}
extension MarbleTimeline.Entry: Equatable where Output: Equatable, Failure: Equatable {}
extension MarbleTimeline.Event: Equatable where Output: Equatable, Failure: Equatable {}

/// A marble line that could not be read, with the column of the problem.
///
/// ```swift
/// do {
///   _ = try MarbleTimeline<String, Never>(parsing: "-a-(b")
/// } catch {
///   print(error)  // `-a-(b`, column 4: a group `(` that is never closed
/// }
/// ```
///
/// > Thread safety: A value type; use it from any thread.
public struct MarbleSyntaxError: Error, Hashable, Sendable, CustomStringConvertible {
  /// The marble line as written.
  public var marbles: String

  /// The 1-based column of the character at fault, counting every character.
  public var column: Int

  /// What is wrong.
  public var reason: String

  /// Creates an error, as the parsers do; for comparing in tests.
  ///
  /// > Thread safety: A value type; use it from any thread.
  ///
  /// - Parameters:
  ///   - marbles: The marble line as written.
  ///   - column: The 1-based column of the character at fault.
  ///   - reason: What is wrong.
  public init(marbles: String, column: Int, reason: String) {
    self.marbles = marbles
    self.column = column
    self.reason = reason
  }

  init(_ marbles: String, _ column: Int, _ reason: String) {
    self.init(marbles: marbles, column: column, reason: reason)
  }

  /// The line, the column and the reason.
  public var description: String {
    "`\(marbles)`, column \(column): \(reason)"
  }
}

/// The character-level reading and writing shared by value lines and subscription lines.
enum MarbleLexer {
  struct Token {
    var frame: Int
    var symbol: Character
    /// 1-based, counting every character, spaces included.
    var column: Int
  }

  /// The characters that are marks in either kind of line, so never stand for values.
  static let marks: Set<Character> = ["-", "|", "#", "^", "!", "(", ")", " ", "*"]

  /// Splits a line into its events (every character but `-`, spaces and parentheses), each
  /// with its frame: a group's events take the frame of its `(`.
  static func tokens(_ marbles: String) throws(MarbleSyntaxError) -> [Token] {
    var tokens: [Token] = []
    var frame = 0
    var group: (frame: Int, column: Int, count: Int)?
    for (offset, character) in marbles.enumerated() {
      let column = offset + 1
      switch character {
      case " ":
        continue
      case "(":
        guard group == nil else {
          throw MarbleSyntaxError(marbles, column, "a group inside a group")
        }
        group = (frame, column, 0)
      case ")":
        guard let open = group else {
          throw MarbleSyntaxError(marbles, column, "`)` without a `(`")
        }
        guard open.count > 0 else {
          throw MarbleSyntaxError(marbles, open.column, "an empty group `()`")
        }
        group = nil
      case "-":
        guard group == nil else {
          throw MarbleSyntaxError(marbles, column, "`-` inside a group")
        }
      default:
        tokens.append(Token(frame: group?.frame ?? frame, symbol: character, column: column))
        group?.count += 1
      }
      frame += 1
    }
    if let open = group {
      throw MarbleSyntaxError(marbles, open.column, "a group `(` that is never closed")
    }
    return tokens
  }

  /// Writes `(frame, symbol)` pairs, sorted by frame, as a marble line.
  static func render(_ events: [(frame: Int, symbol: Character)]) -> String {
    var line = ""
    var position = 0
    var index = events.startIndex
    while index < events.endIndex {
      let frame = events[index].frame
      var symbols: [Character] = []
      while index < events.endIndex, events[index].frame == frame {
        symbols.append(events[index].symbol)
        index += 1
      }
      if frame > position {
        line += String(repeating: "-", count: frame - position)
        position = frame
      }
      let text = symbols.count == 1 ? String(symbols[0]) : "(" + String(symbols) + ")"
      line += text
      position += text.count
    }
    return line
  }

  /// The character for `value`: its key in `values`, else its one-character description, else
  /// `?`.
  static func symbol<Value: Equatable>(
    for value: Value,
    in values: [Character: Value]
  )
    -> Character
  {
    if let key = values.filter({ $0.value == value }).keys.min() { return key }
    let text = String(describing: value)
    if text.count == 1, let character = text.first, !marks.contains(character) {
      return character
    }
    return "?"
  }
}
