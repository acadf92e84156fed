public import StreamCore

extension Publisher where Failure == Never {
  /// The publisher's values as an asynchronous sequence, one value requested per iteration.
  ///
  /// ```swift
  /// for await value in [1, 2, 3].publisher.values { print(value) }
  /// ```
  ///
  /// As in Combine, each `next()` requests one value, so a publisher that honours demand loses
  /// nothing, while a subject's values sent between two `next()` calls are dropped by the
  /// subject. StreamConcurrency's `values(bufferingPolicy:)` keeps those.
  ///
  /// > Thread safety: One task iterates; the publisher may send from any thread.
  @inlinable
  public var values: AsyncPublisher<Self> {
    AsyncPublisher(self)
  }

}

/// A publisher that can't fail, seen as an asynchronous sequence.
///
/// ```swift
/// for await value in AsyncPublisher(Just(1)) { print(value) }
/// ```
///
/// Each iterator has its own subscription, made when the iterator is made, and cancelled when
/// the iterating task is cancelled or the iterator is dropped.
///
/// > Thread safety: A value type. Several tasks may await one iterator's `next()` at once, as
/// > in Combine: each is answered by one requested value, in the order they called.
public struct AsyncPublisher<P: Publisher>: AsyncSequence where P.Failure == Never {
  public typealias Element = P.Output
  public typealias Failure = Never

  @usableFromInline
  let publisher: P

  @usableFromInline
  let bufferingPolicy: ValuesBuffering?

  /// Creates a sequence that requests one value per iteration, as Combine's does.
  ///
  /// - Parameter publisher: The publisher to iterate.
  @inlinable
  public init(_ publisher: P) {
    self.publisher = publisher
    self.bufferingPolicy = nil
  }

  /// Creates a sequence that requests `.unlimited` and buffers by `buffering`: the machinery of
  /// StreamConcurrency's `values(bufferingPolicy:)`.
  @inlinable
  package init(_ publisher: P, buffering: ValuesBuffering) {
    self.publisher = publisher
    self.bufferingPolicy = buffering
  }

  /// Subscribes to the publisher and returns the iterator over its values.
  public func makeAsyncIterator() -> Iterator {
    let subscriber = AsyncValuesSubscriber<P.Output, Never>(policy: bufferingPolicy)
    let lifetime = AsyncValuesLifetime(subscriber)
    publisher.subscribe(subscriber)
    return Iterator(lifetime: lifetime)
  }

  /// Iterates a publisher's values; `nil` once it finished or the task was cancelled.
  ///
  /// ```swift
  /// var iterator = Just(1).values.makeAsyncIterator()
  /// let first = await iterator.next()  // 1
  /// ```
  ///
  /// Dropping the last copy of the iterator cancels its subscription.
  ///
  /// > Thread safety: Several tasks may await `next()` at once; each asks for one value and
  /// > they are answered in the order they called. Cancelling one of them ends the iteration
  /// > for all. The publisher may send from any thread.
  public struct Iterator: AsyncIteratorProtocol {
    /// The type of the publisher's values.
    public typealias Element = P.Output
    public typealias Failure = Never

    let lifetime: AsyncValuesLifetime<P.Output, Never>

    /// The next value, or `nil` at the end or after the task was cancelled.
    public mutating func next() async -> P.Output? {
      await next(isolation: nil)
    }

    /// The next value, awaited on the caller's actor.
    public mutating func next(isolation actor: isolated (any Actor)?) async -> P.Output? {
      switch await lifetime.subscriber.next(isolation: actor) {
      case .success(let value): value
      case nil: nil
      }
    }
  }
}
