import Dispatch
import StreamCore

extension Publisher where Self: Sendable {
  /// This publisher, with `sends` run on a global queue right after each subscriber attaches.
  ///
  /// The expectation tests send from another thread while the helper under test waits. Sending
  /// only once the helper has subscribed (and, with it, requested) keeps a busy machine from
  /// sending before anyone listens, where a fixed delay would not.
  func afterSubscribing(_ sends: @escaping @Sendable () -> Void) -> SendsAfterSubscribing<Self> {
    SendsAfterSubscribing(base: self, sends: sends)
  }
}

/// See ``StreamCore/Publisher/afterSubscribing(_:)``.
struct SendsAfterSubscribing<Base: Publisher & Sendable>: Publisher, Sendable {
  typealias Output = Base.Output
  typealias Failure = Base.Failure

  let base: Base
  let sends: @Sendable () -> Void

  func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
    base.receive(subscriber: subscriber)
    DispatchQueue.global().async(execute: sends)
  }
}
