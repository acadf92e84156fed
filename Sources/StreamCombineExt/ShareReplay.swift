public import SignalOperators
public import StreamCore

extension Publisher {
  /// Shares one subscription to the upstream among all subscribers, and replays the latest
  /// `count` values, then the completion, to each new subscriber.
  ///
  /// ```swift
  /// let shared = [1, 2, 3].publisher.share(replay: 2)
  /// let first = shared.sink { print("A", $0) }   // A 1, A 2, A 3
  /// let second = shared.sink { print("B", $0) }  // B 2, B 3, then the finish
  /// ```
  ///
  /// It is `multicast { ReplaySubject(bufferSize: count) }.autoconnect()`: the first subscriber
  /// connects the upstream, and the one ``ReplaySubject`` keeps the latest `count` values and the
  /// completion for everyone who comes later, including after the upstream ended. Each subscriber
  /// gets the values with its own demand; one without demand keeps at most the latest `count`
  /// values for later.
  ///
  /// > Thread safety: Subscribing, requesting and cancelling are safe from any thread; see
  /// > ``ReplaySubject`` for the order of deliveries.
  ///
  /// - Parameter count: How many of the latest values to replay; `0` replays only the completion.
  /// - Returns: A publisher that shares the upstream and replays its latest values.
  public func share(
    replay count: Int
  ) -> Publishers.Autoconnect<Publishers.Multicast<Self, ReplaySubject<Output, Failure>>> {
    multicast { ReplaySubject(bufferSize: count) }.autoconnect()
  }
}
