import Foundation
import SignalOperators
import StreamCore

extension Publishers {
  /// Mirrors whichever of two publishers sends a value first.
  public struct Amb<First: Publisher, Second: Publisher>: Publisher
  where First.Output == Second.Output, First.Failure == Second.Failure {
    public typealias Output = First.Output
    public typealias Failure = First.Failure

    public let first: First
    public let second: Second

    public init(first: First, second: Second) {
      self.first = first
      self.second = second
    }

    public func receive<S: Subscriber>(subscriber: S)
    where S.Input == Output, S.Failure == Failure {
      let race = Race()
      first.map { (0, $0) }
        .merge(with: second.map { (1, $0) })
        .filter { race.wins($0.0) }
        .map(\.1)
        .receive(subscriber: subscriber)
    }
  }
}

/// Which side sent first.
final class Race: @unchecked Sendable {
  private let lock = NSLock()
  private var winner: Int?

  func wins(_ side: Int) -> Bool {
    lock.withLock {
      if winner == nil { winner = side }
      return winner == side
    }
  }
}

extension Publisher {
  /// Mirrors this publisher or `other`, whichever sends a value first.
  public func amb<Other: Publisher>(_ other: Other) -> Publishers.Amb<Self, Other>
  where Other.Output == Output, Other.Failure == Failure {
    Publishers.Amb(first: self, second: other)
  }
}
