public import StreamCore

extension Publisher {
  /// Subscribes to this publisher again when it fails, up to `retries` times.
  ///
  /// ```swift
  /// fetchQuote()
  ///   .retry(3)
  ///   .sink(receiveCompletion: { print($0) }, receiveValue: { show($0) })
  /// ```
  ///
  /// Values from every attempt go downstream. When an attempt fails and retries remain, the
  /// publisher is subscribed again and asked for the demand not yet used; the failure of the
  /// last attempt goes downstream. A retry happens at once, on the thread that delivered the
  /// failure.
  ///
  /// <!-- marbles:retry -->
  /// Marble diagram of `retry(1)`, made by running it (a character is a tick of virtual time; `|`
  /// finished, `#` failed, `(ab)` one instant):
  ///
  /// ```text
  /// input   -a-#
  /// output  -a--a-#
  /// ```
  ///
  /// ![Marble diagram of retry(1)](marble-retry)
  /// <!-- /marbles:retry -->
  ///
  /// > Thread safety: `request(_:)` and `cancel()` are safe from any thread.
  ///
  /// As in Combine, a negative `retries` retries for ever, and a value the upstream sends beyond
  /// the subscriber's demand traps (a `Subscriber` contract violation).
  ///
  /// - Parameter retries: How many times to subscribe again after a failure.
  /// - Returns: A publisher that resubscribes on failure.
  public func retry(_ retries: Int) -> Publishers.Retry<Self> {
    Publishers.Retry(upstream: self, retries: retries)
  }
}

extension Publishers {
  /// A publisher that subscribes to its upstream again when it fails.
  ///
  /// ```swift
  /// let patient = Publishers.Retry(upstream: fetchQuote(), retries: 3)
  /// ```
  ///
  /// See ``StreamCore/Publisher/retry(_:)``. With `retries` `nil` it retries without end. The
  /// subscription is described as `"Retry"`.
  ///
  /// > Thread safety: `request(_:)` and `cancel()` on its subscription are safe from any thread.
  public struct Retry<Upstream: Publisher>: Publisher {
    public typealias Output = Upstream.Output
    public typealias Failure = Upstream.Failure

    /// The publisher subscribed again after each failure.
    public let upstream: Upstream

    /// How many times to subscribe again, or `nil` for no limit.
    public let retries: Int?

    /// Creates a publisher that subscribes to `upstream` again on failure.
    ///
    /// - Parameters:
    ///   - upstream: The publisher subscribed again after each failure.
    ///   - retries: How many times to subscribe again, or `nil` for no limit.
    public init(upstream: Upstream, retries: Int?) {
      self.upstream = upstream
      self.retries = retries
    }

    @inlinable
    public func receive<S: Subscriber>(subscriber: S)
    where S.Input == Output, S.Failure == Failure {
      let serial = SerialUpstreams(
        downstream: subscriber,
        name: "Retry",
        requestsExtraDemand: true,
        checks: .valueBeyondDemand
      )
      let upstream = self.upstream
      let retries = self.retries
      var attempts = 0
      func attempt() {
        serial.attach(upstream) { completion in
          // As Combine: a negative count, like `nil`, retries for ever.
          guard case .failure = completion, retries.map({ $0 < 0 || attempts < $0 }) ?? true else {
            return .complete(completion)
          }
          attempts += 1
          return .next(attempt)
        }
      }
      serial.run(attempt)
    }
  }
}

extension Publishers.Retry: Equatable where Upstream: Equatable {}

extension Publishers.Retry: Sendable where Upstream: Sendable {}
