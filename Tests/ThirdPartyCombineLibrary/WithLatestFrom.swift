import Foundation
import SignalOperators
import StreamCore

extension Publishers {
  /// Pairs each value of `upstream` with the latest value of `other`; values that arrive before
  /// `other` has sent one are dropped.
  public struct WithLatestFrom<Upstream: Publisher, Other: Publisher>: Publisher
  where Upstream.Failure == Other.Failure {
    public typealias Output = (Upstream.Output, Other.Output)
    public typealias Failure = Upstream.Failure

    public let upstream: Upstream
    public let other: Other

    public init(upstream: Upstream, other: Other) {
      self.upstream = upstream
      self.other = other
    }

    public func receive<S: Subscriber>(subscriber: S)
    where S.Input == Output, S.Failure == Failure {
      let latest = Latest<Other.Output>()
      let otherSubscription = other.sink(
        receiveCompletion: { _ in },
        receiveValue: { latest.value = $0 }
      )
      upstream
        .compactMap { value in latest.value.map { (value, $0) } }
        .handleEvents(receiveCancel: { otherSubscription.cancel() })
        .receive(subscriber: subscriber)
    }
  }
}

/// The other publisher's latest value, written and read under a lock.
final class Latest<Value>: @unchecked Sendable {
  private let lock = NSLock()
  private var stored: Value?

  var value: Value? {
    get { lock.withLock { stored } }
    set { lock.withLock { stored = newValue } }
  }
}

extension Publisher {
  /// Pairs each value with the latest value of `other`.
  public func withLatestFrom<Other: Publisher>(
    _ other: Other
  ) -> Publishers.WithLatestFrom<Self, Other>
  where Other.Failure == Failure {
    Publishers.WithLatestFrom(upstream: self, other: other)
  }
}
