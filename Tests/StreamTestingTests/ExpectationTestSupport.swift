import Dispatch
import StreamCore

extension Publisher where Self: Sendable {
  /// This publisher, with `sends` run on a global queue right after each subscriber attaches.
  ///
  /// The expectation tests send from another thread while the helper under test waits. Sending
  /// only once the helper has subscribed (and, with it, requested) keeps a busy machine from
  /// sending before anyone listens, where a fixed delay would not.
  func afterSubscribing(_ sends: @escaping @Sendable () -> Void) -> SendsAfterSubscribing<Self> {
    SendsAfterSubscribing(base: self, sends: sends, synchronously: false)
  }

  /// This publisher, with `sends` run on the subscribing thread right after each subscriber
  /// attaches: for the timeout tests, whose values must arrive before the timeout whatever the
  /// machine's load.
  func whenSubscribed(_ sends: @escaping @Sendable () -> Void) -> SendsAfterSubscribing<Self> {
    SendsAfterSubscribing(base: self, sends: sends, synchronously: true)
  }
}

/// See ``StreamCore/Publisher/afterSubscribing(_:)`` and
/// ``StreamCore/Publisher/whenSubscribed(_:)``.
struct SendsAfterSubscribing<Base: Publisher & Sendable>: Publisher, Sendable {
  typealias Output = Base.Output
  typealias Failure = Base.Failure

  let base: Base
  let sends: @Sendable () -> Void
  let synchronously: Bool

  func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
    base.receive(subscriber: subscriber)
    if synchronously {
      sends()
    } else {
      DispatchQueue.global().async(execute: sends)
    }
  }
}
