public import StreamCore

extension Publisher {
  /// Replaces a failure with the values of the publisher `handler` makes from the error.
  ///
  /// ```swift
  /// download(url)
  ///   .catch { _ in Just(cachedPage) }
  ///   .sink { show($0) }
  /// ```
  ///
  /// Values go downstream until this publisher completes. If it finishes, the downstream
  /// finishes. If it fails, `handler` makes a new publisher from the error, which is subscribed
  /// with the demand not yet used; its values and completion go downstream.
  ///
  /// <!-- marbles:catch -->
  /// Marble diagram of `catch { _ in fallback }`, made by running it (a character is a tick of
  /// virtual time; `|` finished, `#` failed, `(ab)` one instant):
  ///
  /// ```text
  /// input     -a-b-#
  /// fallback  -1-2|
  /// output    -a-b--1-2|
  /// ```
  ///
  /// ![Marble diagram of catch { _ in fallback }](marble-catch)
  /// <!-- /marbles:catch -->
  ///
  /// > Thread safety: `handler` runs on the thread that delivered the failure. `request(_:)` and
  /// > `cancel()` are safe from any thread.
  ///
  /// - Parameter handler: Makes the publisher that replaces the failed one.
  /// - Returns: A publisher that replaces a failure with another publisher's values.
  public func `catch`<P: Publisher>(
    _ handler: @escaping (Failure) -> P
  ) -> Publishers.Catch<Self, P> where P.Output == Output {
    Publishers.Catch(upstream: self, handler: handler)
  }
}

extension Publishers {
  /// A publisher that replaces its upstream's failure with another publisher.
  ///
  /// ```swift
  /// let safe = Publishers.Catch(upstream: download(url)) { _ in Just(cachedPage) }
  /// ```
  ///
  /// See ``StreamCore/Publisher/catch(_:)``. The subscription is described as `"Catch"`.
  ///
  /// > Thread safety: `request(_:)` and `cancel()` on its subscription are safe from any thread.
  public struct Catch<Upstream: Publisher, NewPublisher: Publisher>: Publisher
  where Upstream.Output == NewPublisher.Output {
    public typealias Output = Upstream.Output
    public typealias Failure = NewPublisher.Failure

    /// The publisher whose failure is replaced.
    public let upstream: Upstream

    /// Makes the replacement publisher from the upstream's error.
    public let handler: (Upstream.Failure) -> NewPublisher

    /// Creates a publisher that replaces `upstream`'s failure with `handler`'s publisher.
    ///
    /// - Parameters:
    ///   - upstream: The publisher whose failure is replaced.
    ///   - handler: Makes the replacement publisher from the upstream's error.
    public init(upstream: Upstream, handler: @escaping (Upstream.Failure) -> NewPublisher) {
      self.upstream = upstream
      self.handler = handler
    }

    @inlinable
    public func receive<S: Subscriber>(subscriber: S)
    where S.Input == Output, S.Failure == Failure {
      let serial = SerialUpstreams(
        downstream: subscriber,
        name: "Catch",
        reflectsDemand: true,
        checks: [.requestNone, .valueBeyondDemand, .secondCompletion]
      )
      let upstream = self.upstream
      let handler = self.handler
      serial.run {
        serial.attach(upstream) { completion in
          switch completion {
          case .finished:
            return .complete(.finished)
          case .failure(let error):
            let replacement = handler(error)
            return .next {
              serial.attach(replacement) { .complete($0) }
            }
          }
        }
      }
    }
  }
}
