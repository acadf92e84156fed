import Foundation
import SignalOperators
import StreamCore

/// A subject that replays its latest values to each new subscriber, then sends the live ones.
public final class ReplaySubject<Output, Failure: Error>: Subject {
  private let lock = NSLock()
  private let live = PassthroughSubject<Output, Failure>()
  private var buffer: [Output] = []
  private let bufferSize: Int

  public init(bufferSize: Int) {
    self.bufferSize = bufferSize
  }

  public func send(_ value: Output) {
    lock.withLock {
      buffer.append(value)
      if buffer.count > bufferSize { buffer.removeFirst(buffer.count - bufferSize) }
    }
    live.send(value)
  }

  public func send(completion: Subscribers.Completion<Failure>) {
    live.send(completion: completion)
  }

  public func send(subscription: any Subscription) {
    subscription.request(.unlimited)
  }

  public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
    let replayed = lock.withLock { buffer }
    replayed.publisher.setFailureType(to: Failure.self).append(live).receive(subscriber: subscriber)
  }
}

extension Publisher {
  /// Shares this publisher and replays its latest `count` values to each new subscriber.
  public func share(
    replay count: Int
  )
    -> Publishers.Autoconnect<
      Publishers.Multicast<Self, ReplaySubject<Output, Failure>>
    >
  {
    multicast { ReplaySubject(bufferSize: count) }.autoconnect()
  }
}
