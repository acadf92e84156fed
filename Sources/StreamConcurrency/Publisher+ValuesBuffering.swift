import FutureKit
public import SignalOperators
public import StreamCore

extension Publisher where Failure == Never {
  /// The publisher's values as an asynchronous sequence that buffers what arrives between
  /// iterations.
  ///
  /// ```swift
  /// let subject = PassthroughSubject<Int, Never>()
  /// for await value in subject.values(bufferingPolicy: .unbounded) { print(value) }
  /// ```
  ///
  /// Making the iterator subscribes and requests `.unlimited`; values the loop hasn't read yet
  /// wait in a buffer handled by `bufferingPolicy`, so with ``AsyncBufferingPolicy/unbounded``
  /// nothing is lost however fast the publisher sends.
  ///
  /// > Thread safety: One task iterates; the publisher may send from any thread.
  ///
  /// - Parameter bufferingPolicy: What to keep when the loop falls behind.
  /// - Returns: An asynchronous sequence of the publisher's values.
  public func values(bufferingPolicy: AsyncBufferingPolicy) -> AsyncPublisher<Self> {
    AsyncPublisher(self, buffering: bufferingPolicy.buffering)
  }
}

extension Publisher {
  /// The publisher's values as a throwing asynchronous sequence that buffers what arrives
  /// between iterations.
  ///
  /// ```swift
  /// for try await message in socket.messages.values(bufferingPolicy: .unbounded) { handle(message) }
  /// ```
  ///
  /// Making the iterator subscribes and requests `.unlimited`; values not read yet wait in a
  /// buffer handled by `bufferingPolicy`. A failure is thrown after the buffered values.
  ///
  /// > Thread safety: One task iterates; the publisher may send from any thread.
  ///
  /// - Parameter bufferingPolicy: What to keep when the loop falls behind.
  /// - Returns: A throwing asynchronous sequence of the publisher's values.
  public func values(bufferingPolicy: AsyncBufferingPolicy) -> AsyncThrowingPublisher<Self> {
    AsyncThrowingPublisher(self, buffering: bufferingPolicy.buffering)
  }
}

extension AsyncPublisher {
  /// Creates a sequence that requests `.unlimited` and buffers by `bufferingPolicy`.
  ///
  /// - Parameters:
  ///   - publisher: The publisher to iterate.
  ///   - bufferingPolicy: What to keep when the loop falls behind.
  public init(_ publisher: P, bufferingPolicy: AsyncBufferingPolicy) {
    self.init(publisher, buffering: bufferingPolicy.buffering)
  }
}

extension AsyncThrowingPublisher {
  /// Creates a sequence that requests `.unlimited` and buffers by `bufferingPolicy`.
  ///
  /// - Parameters:
  ///   - publisher: The publisher to iterate.
  ///   - bufferingPolicy: What to keep when the loop falls behind.
  public init(_ publisher: P, bufferingPolicy: AsyncBufferingPolicy) {
    self.init(publisher, buffering: bufferingPolicy.buffering)
  }
}
