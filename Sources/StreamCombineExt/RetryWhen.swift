public import SignalOperators
public import StreamCore

extension Publisher {
  /// Subscribes to the upstream again after a failure, each time the publisher that
  /// `errorTrigger` builds from the failures publishes a value.
  ///
  /// ```swift
  /// let fetched = fetch.retryWhen { failures in
  ///   failures.prefix(3).map { _ in () }
  /// }
  /// ```
  ///
  /// That retries after the first two failures only: at the third, `prefix(3)` publishes its
  /// last value and finishes at once, and the trigger's finish ends the publisher (cancelling
  /// the attempt the value started), as with CombineExt.
  ///
  /// For each subscription, `errorTrigger` is called once with a publisher of the upstream's
  /// failures, and its result (the trigger) is subscribed with unlimited demand. Values pass
  /// through with the subscriber's demand. When the upstream fails, the failure is published to
  /// the trigger instead of the subscriber; the trigger's next value subscribes to the upstream
  /// again, and demand not yet met is requested from it. The upstream's `.finished` finishes the
  /// publisher. The trigger's `.finished` finishes it too, cancelling a live upstream, and the
  /// trigger's failure fails it when that failure is of the type `Failure` (else it finishes).
  /// A trigger value while the upstream is live is ignored. The subscription's description is
  /// `"RetryWhen"`.
  ///
  /// <!-- marbles:retry-when -->
  /// Marble diagram of `retryWhen { failures in failures.prefix(3).map { _ in () } }`, made by
  /// running it (a character is a tick of virtual time; `|` finished, `#` failed, `(ab)` one
  /// instant):
  ///
  /// ```text
  /// input   -a-#
  /// output  -a--a--a-|
  ///         the trigger's third value is also its last: its finish ends the output
  /// ```
  ///
  /// ![Marble diagram of retryWhen { failures in failures.prefix(3).map { _ in () } }](marble-retry-when)
  /// <!-- /marbles:retry-when -->
  ///
  /// > Thread safety: `request(_:)` and `cancel()` are safe from any thread; the upstream and the
  /// > trigger may deliver on any thread. A failure is published to the trigger on the thread it
  /// > arrived on; `errorTrigger` runs on the subscribing thread. A trigger that answers a
  /// > failure synchronously doesn't nest one subscription inside another: the next subscription
  /// > starts when the current call returns.
  ///
  /// - Parameter errorTrigger: Builds the trigger from the publisher of failures.
  /// - Returns: A publisher that retries the upstream when the trigger says so.
  public func retryWhen<RetryTrigger: Publisher>(
    _ errorTrigger: @escaping (AnyPublisher<Failure, Never>) -> RetryTrigger
  ) -> Publishers.RetryWhen<Self, RetryTrigger, Output, Failure> {
    Publishers.RetryWhen(upstream: self, errorTrigger: errorTrigger)
  }

  /// Subscribes to the upstream again after a failure, each time the publisher that
  /// `errorTrigger` builds from the failures publishes a value.
  ///
  /// ```swift
  /// let fetched = fetch.retry(when: { failures in failures.map { _ in () } })
  /// ```
  ///
  /// Another spelling of ``retryWhen(_:)``, CombineExt's name.
  ///
  /// <!-- marbles:retry-when -->
  /// Marble diagram of `retryWhen { failures in failures.prefix(3).map { _ in () } }`, made by
  /// running it (a character is a tick of virtual time; `|` finished, `#` failed, `(ab)` one
  /// instant):
  ///
  /// ```text
  /// input   -a-#
  /// output  -a--a--a-|
  ///         the trigger's third value is also its last: its finish ends the output
  /// ```
  ///
  /// ![Marble diagram of retryWhen { failures in failures.prefix(3).map { _ in () } }](marble-retry-when)
  /// <!-- /marbles:retry-when -->
  ///
  /// > Thread safety: As ``retryWhen(_:)``.
  ///
  /// - Parameter errorTrigger: Builds the trigger from the publisher of failures.
  /// - Returns: A publisher that retries the upstream when the trigger says so.
  public func retry<RetryTrigger: Publisher>(
    when errorTrigger: @escaping (AnyPublisher<Failure, Never>) -> RetryTrigger
  ) -> Publishers.RetryWhen<Self, RetryTrigger, Output, Failure> {
    Publishers.RetryWhen(upstream: self, errorTrigger: errorTrigger)
  }
}

extension Publishers {
  /// A publisher that subscribes to its upstream again after a failure when a trigger built from
  /// the failures says so.
  ///
  /// ```swift
  /// let retried = Publishers.RetryWhen(upstream: fetch) { failures in failures.prefix(2) }
  /// ```
  ///
  /// See ``StreamCore/Publisher/retryWhen(_:)``. The generic parameters are CombineExt's:
  /// `Output` and `Failure` are the upstream's.
  ///
  /// > Thread safety: As ``StreamCore/Publisher/retryWhen(_:)``.
  public struct RetryWhen<Upstream: Publisher, RetryTrigger: Publisher, Output, Failure: Error>:
    Publisher
  where Upstream.Output == Output, Upstream.Failure == Failure {
    /// The closure that builds the trigger from the publisher of the upstream's failures.
    public typealias ErrorTrigger = (AnyPublisher<Failure, Never>) -> RetryTrigger

    /// The publisher subscribed to again after each failure the trigger answers.
    public let upstream: Upstream

    /// Builds each subscription's trigger.
    public let errorTrigger: ErrorTrigger

    /// Creates a publisher that retries `upstream` when the trigger built by `errorTrigger`
    /// publishes a value.
    ///
    /// > Thread safety: See ``StreamCore/Publisher/retryWhen(_:)``.
    ///
    /// - Parameters:
    ///   - upstream: The publisher to subscribe to, and again after failures.
    ///   - errorTrigger: Builds the trigger from the publisher of failures.
    public init(upstream: Upstream, errorTrigger: @escaping ErrorTrigger) {
      self.upstream = upstream
      self.errorTrigger = errorTrigger
    }

    @inlinable
    public func receive<S: Subscriber>(subscriber: S)
    where S.Input == Output, S.Failure == Failure {
      let serial = SerialUpstreams(downstream: subscriber, name: "RetryWhen", finishes: true)
      let failures = PassthroughSubject<Failure, Never>()
      let upstream = self.upstream
      func attempt() {
        serial.attach(upstream) { completion in
          switch completion {
          case .finished: .complete(.finished)
          case .failure(let failure): .wait { failures.send(failure) }
          }
        }
      }
      errorTrigger(failures.eraseToAnyPublisher())
        .subscribe(
          RetryTriggerInlet<RetryTrigger.Output, RetryTrigger.Failure, S>(
            serial: serial,
            attempt: attempt
          )
        )
      serial.run(attempt)
    }
  }
}

/// The subscriber to a `RetryWhen` trigger: each value resumes a waiting subscription, and the
/// completion ends it.
// Sendable: `subscribed` is guarded by `lock`; `serial` is thread-safe and called outside it.
@usableFromInline
final class RetryTriggerInlet<Value, TriggerFailure: Error, Downstream: Subscriber>:
  Subscriber, CustomStringConvertible, @unchecked Sendable
{
  @usableFromInline typealias Input = Value
  @usableFromInline typealias Failure = TriggerFailure

  private let lock = Lock()
  private var subscribed = false
  private let serial: SerialUpstreams<Downstream>
  private let attempt: () -> Void

  @usableFromInline
  init(serial: SerialUpstreams<Downstream>, attempt: @escaping () -> Void) {
    self.serial = serial
    self.attempt = attempt
  }

  @usableFromInline
  var description: String { "RetryWhen" }

  @usableFromInline
  func receive(subscription: any Subscription) {
    let first = lock.withLock { () -> Bool in
      defer { subscribed = true }
      return !subscribed
    }
    guard first, serial.keep(companion: subscription) else {
      subscription.cancel()
      return
    }
    subscription.request(.unlimited)
  }

  @usableFromInline
  func receive(_ input: Value) -> Subscribers.Demand {
    serial.resume(attempt)
    return .none
  }

  @usableFromInline
  func receive(completion: Subscribers.Completion<TriggerFailure>) {
    switch completion {
    case .finished:
      serial.finish(.finished)
    case .failure(let failure):
      if let failure = failure as? Downstream.Failure {
        serial.finish(.failure(failure))
      } else {
        serial.finish(.finished)
      }
    }
  }
}
