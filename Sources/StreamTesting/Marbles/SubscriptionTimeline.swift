public import StreamCore

/// A subscription line: when a subscriber subscribes, requests and cancels.
///
/// ```swift
/// let line = try SubscriptionTimeline(parsing: "(^1)--1---!")
/// line.entries.map(\.frame)  // [0, 0, 5, 9]
/// line.rendered()  // "(^1)-1---!"
/// ```
///
/// It serves two ends: the `demand:` line of a marble expectation, which says what the test's
/// subscriber does and when, and the log of a marble publisher's subscriptions
/// (``MarblePublisher/subscriptionLines``), which says what the operator under test did.
///
/// | Mark | Meaning |
/// |---|---|
/// | `-` | one frame in which nothing happens |
/// | `^` | subscribes |
/// | `1` … `9` | `request(.max(n))` |
/// | `*` | `request(.unlimited)` |
/// | `!` | `cancel()` |
/// | `(^*)` | several calls in the frame of `(` |
/// | space | ignored, for alignment |
///
/// When rendered, a request for more than nine values is written `?`.
///
/// > Thread safety: A value type; use it from any thread.
public struct SubscriptionTimeline: Hashable, Sendable, CustomStringConvertible {
  /// One call a subscriber makes.
  ///
  /// ```swift
  /// try SubscriptionTimeline(parsing: "^*!").entries.map(\.action)
  /// // [.subscribe, .request(.unlimited), .cancel]
  /// ```
  ///
  /// > Thread safety: A value type; use it from any thread.
  public enum Action: Hashable, Sendable {
    /// Subscribes to the publisher.
    case subscribe

    /// Calls `request(_:)` with this demand.
    case request(Subscribers.Demand)

    /// Calls `cancel()`.
    case cancel
  }

  /// One call and its frame.
  ///
  /// ```swift
  /// SubscriptionTimeline(entries: [.init(frame: 1, action: .subscribe)]).rendered()  // "-^"
  /// ```
  ///
  /// > Thread safety: A value type; use it from any thread.
  public struct Entry: Hashable, Sendable {
    /// The frame of the call.
    public var frame: Int

    /// The call.
    public var action: Action

    /// Creates an entry.
    ///
    /// > Thread safety: A value type; use it from any thread.
    ///
    /// - Parameters:
    ///   - frame: The frame of the call.
    ///   - action: The call.
    public init(frame: Int, action: Action) {
      self.frame = frame
      self.action = action
    }
  }

  /// The calls, in order.
  public var entries: [Entry]

  /// Creates a line from calls, sorted by frame.
  ///
  /// > Thread safety: A value type; use it from any thread.
  ///
  /// - Parameter entries: The calls, sorted by frame.
  public init(entries: [Entry]) {
    self.entries = entries
  }

  /// Parses a subscription line.
  ///
  /// ```swift
  /// let demand = try SubscriptionTimeline(parsing: "(^2)----1")
  /// ```
  ///
  /// > Thread safety: A pure function; call it from any thread.
  ///
  /// - Parameter marbles: The line.
  /// - Throws: ``MarbleSyntaxError`` for a malformed line, a mark that is not one of the
  ///   table's, or a call before `^` or after `!`.
  public init(parsing marbles: String) throws(MarbleSyntaxError) {
    var entries: [Entry] = []
    var subscribed = false
    var cancelled = false
    for token in try MarbleLexer.tokens(marbles) {
      let action: Action
      switch token.symbol {
      case "^":
        guard !subscribed else {
          throw MarbleSyntaxError(marbles, token.column, "a second `^`")
        }
        subscribed = true
        action = .subscribe
      case "*":
        action = .request(.unlimited)
      case "!":
        action = .cancel
      case let digit where digit.wholeNumberValue.map { (1...9).contains($0) } == true:
        action = .request(.max(digit.wholeNumberValue ?? 1))
      default:
        throw MarbleSyntaxError(
          marbles,
          token.column,
          "`\(token.symbol)` is not a subscription mark (`^`, `1`…`9`, `*`, `!`)"
        )
      }
      guard action == .subscribe || subscribed else {
        throw MarbleSyntaxError(marbles, token.column, "a call before the subscription `^`")
      }
      guard !cancelled else {
        throw MarbleSyntaxError(marbles, token.column, "a call after the cancel `!`")
      }
      if action == .cancel { cancelled = true }
      entries.append(Entry(frame: token.frame, action: action))
    }
    self.init(entries: entries)
  }

  /// The line written as marbles, such as `"(^*)---!"`.
  ///
  /// > Thread safety: A pure function; call it from any thread.
  ///
  /// - Returns: The marble line.
  public func rendered() -> String {
    MarbleLexer.render(
      entries.filter { $0.frame >= 0 }.map { entry -> (Int, Character) in
        switch entry.action {
        case .subscribe: (entry.frame, "^")
        case .cancel: (entry.frame, "!")
        case .request(let demand):
          if demand == .unlimited {
            (entry.frame, "*")
          } else if let max = demand.max, (1...9).contains(max), let digit = String(max).first {
            (entry.frame, digit)
          } else {
            (entry.frame, "?")
          }
        }
      }
    )
  }

  /// The rendered line.
  public var description: String { rendered() }
}
