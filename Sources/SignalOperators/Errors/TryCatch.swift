public import StreamCore

extension Publisher {
  /// Replaces a failure with the values of the publisher `handler` makes from the error, or
  /// fails with the error `handler` throws.
  ///
  /// ```swift
  /// download(url)
  ///   .tryCatch { error in
  ///     guard error.isTransient else { throw error }
  ///     return download(mirrorURL)
  ///   }
  ///   .sink(receiveCompletion: { print($0) }, receiveValue: { show($0) })
  /// ```
  ///
  /// Like ``catch(_:)``, but the failure type becomes `any Error`: an error thrown by `handler`
  /// fails the stream with that error.
  ///
  /// <!-- marbles:try-catch -->
  /// Marble diagram of `tryCatch { _ in fallback }`, made by running it (a character is a tick of
  /// virtual time; `|` finished, `#` failed, `(ab)` one instant):
  ///
  /// ```text
  /// input     -a-b-#
  /// fallback  -1-2|
  /// output    -a-b--1-2|
  /// ```
  ///
  /// ![Marble diagram of tryCatch { _ in fallback }](marble-try-catch)
  /// <!-- /marbles:try-catch -->
  ///
  /// > Thread safety: `handler` runs on the thread that delivered the failure. `request(_:)` and
  /// > `cancel()` are safe from any thread.
  ///
  /// - Parameter handler: Makes the replacement publisher, or throws.
  /// - Returns: A publisher that replaces a failure with another publisher's values.
  public func tryCatch<P: Publisher>(
    _ handler: @escaping (Failure) throws -> P
  ) -> Publishers.TryCatch<Self, P> where P.Output == Output {
    Publishers.TryCatch(upstream: self, handler: handler)
  }
}

extension Publishers {
  /// A publisher that replaces its upstream's failure with another publisher, with a handler
  /// that may throw.
  ///
  /// ```swift
  /// let safe = Publishers.TryCatch(upstream: download(url)) { _ in download(mirrorURL) }
  /// ```
  ///
  /// See ``StreamCore/Publisher/tryCatch(_:)``. The subscription is described as `"TryCatch"`.
  ///
  /// > Thread safety: `request(_:)` and `cancel()` on its subscription are safe from any thread.
  public struct TryCatch<Upstream: Publisher, NewPublisher: Publisher>: Publisher
  where Upstream.Output == NewPublisher.Output {
    public typealias Output = Upstream.Output
    public typealias Failure = any Error

    /// The publisher whose failure is replaced.
    public let upstream: Upstream

    /// Makes the replacement publisher from the upstream's error, or throws.
    public let handler: (Upstream.Failure) throws -> NewPublisher

    /// Creates a publisher that replaces `upstream`'s failure with `handler`'s publisher.
    ///
    /// - Parameters:
    ///   - upstream: The publisher whose failure is replaced.
    ///   - handler: Makes the replacement publisher from the upstream's error, or throws.
    public init(upstream: Upstream, handler: @escaping (Upstream.Failure) throws -> NewPublisher) {
      self.upstream = upstream
      self.handler = handler
    }

    @inlinable
    public func receive<S: Subscriber>(subscriber: S)
    where S.Input == Output, S.Failure == Failure {
      let serial = SerialUpstreams(
        downstream: subscriber,
        name: "TryCatch",
        reflectsDemand: true,
        checks: [.requestNone, .valueBeyondDemand, .secondCompletion]
      )
      let upstream = self.upstream
      let handler = self.handler
      serial.run {
        serial.attach(upstream) { completion in
          guard case .failure(let error) = completion else { return .complete(.finished) }
          let replacement: NewPublisher
          do {
            replacement = try handler(error)
          } catch {
            return .complete(.failure(error))
          }
          return .next {
            serial.attach(replacement) { completion in
              switch completion {
              case .finished: .complete(.finished)
              case .failure(let error): .complete(.failure(error))
              }
            }
          }
        }
      }
    }
  }
}
