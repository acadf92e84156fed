public import StreamCore

extension Publisher {
  /// The publisher's values as an asynchronous sequence that throws the publisher's failure.
  ///
  /// ```swift
  /// for try await line in lines.values { print(line) }
  /// ```
  ///
  /// As in Combine, each `next()` requests one value; StreamConcurrency's
  /// `values(bufferingPolicy:)` keeps what a subject sends between iterations.
  ///
  /// > Thread safety: One task iterates; the publisher may send from any thread.
  @inlinable
  public var values: AsyncThrowingPublisher<Self> {
    AsyncThrowingPublisher(self)
  }

}

/// A publisher seen as an asynchronous sequence that throws its failure.
///
/// ```swift
/// for try await value in AsyncThrowingPublisher(Fail<Int, MyError>(error: .broken)) {}
/// ```
///
/// Each iterator has its own subscription, made when the iterator is made, and cancelled when
/// the iterating task is cancelled or the iterator is dropped. After the failure is thrown,
/// `next()` returns `nil`.
///
/// > Thread safety: A value type. Several tasks may await one iterator's `next()` at once, as
/// > in Combine: each is answered by one requested value, in the order they called.
public struct AsyncThrowingPublisher<P: Publisher>: AsyncSequence {
  public typealias Element = P.Output
  public typealias Failure = any Error

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
    let subscriber = AsyncValuesSubscriber<P.Output, P.Failure>(policy: bufferingPolicy)
    let lifetime = AsyncValuesLifetime(subscriber)
    publisher.subscribe(subscriber)
    return Iterator(lifetime: lifetime)
  }

  /// Iterates a publisher's values; throws its failure once, then returns `nil`.
  ///
  /// ```swift
  /// var iterator = Fail<Int, MyError>(error: .broken).values.makeAsyncIterator()
  /// do { _ = try await iterator.next() } catch { print(error) }  // broken
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
    public typealias Failure = any Error

    let lifetime: AsyncValuesLifetime<P.Output, P.Failure>

    /// The next value; `nil` at the end or after the task was cancelled.
    ///
    /// Untyped `throws`, and `Failure` is `any Error`, as in Combine: with a concrete `Failure`
    /// (a typed `next()` or `next(isolation:)`), client code that forwards `next()` through a
    /// generic `rethrows` function crashes the Swift 6.3 compiler (signal 11 in SILGen).
    ///
    /// - Throws: The publisher's failure.
    public mutating func next() async throws -> P.Output? {
      try await next(isolation: nil)
    }

    /// The next value, awaited on the caller's actor.
    ///
    /// - Throws: The publisher's failure.
    public mutating func next(
      isolation actor: isolated (any Actor)?
    ) async throws -> P.Output? {
      switch await lifetime.subscriber.next(isolation: actor) {
      case .success(let value): return value
      case .failure(let error): throw error
      case nil: return nil
      }
    }
  }
}
