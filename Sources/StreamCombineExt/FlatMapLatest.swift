public import SignalOperators
public import StreamCore

extension Publisher {
  /// Turns each value into a publisher and publishes the values of the latest one, cancelling
  /// the one before.
  ///
  /// ```swift
  /// let cancellable = searchText
  ///   .flatMapLatest { query in search(query) }
  ///   .sink { show($0) }
  /// ```
  ///
  /// `map(transform)` then `switchToLatest()`, with its demand and completion rules: this
  /// publisher is asked for unlimited values; demand the subscriber asked for and didn't get
  /// moves on to each new publisher; it finishes once this publisher and the current inner
  /// publisher have finished, and a failure of either fails it.
  ///
  /// <!-- marbles:flat-map-latest -->
  /// Marble diagram of `flatMapLatest { $0 }`, made by running it (a character is a tick of virtual
  /// time; `|` finished, `#` failed, `(ab)` one instant):
  ///
  /// ```text
  /// outer   -x---y-----|
  /// x       -a-b-c|
  /// y       -d-e|
  /// output  --a-b-d-e--|
  /// ```
  ///
  /// ![Marble diagram of flatMapLatest { $0 }](marble-flat-map-latest)
  /// <!-- /marbles:flat-map-latest -->
  ///
  /// > Thread safety: As `switchToLatest()`: values go downstream one at a time, on the thread
  /// > that sent them or on the thread already delivering; `transform` runs on this publisher's
  /// > thread.
  ///
  /// - Parameter transform: Makes the inner publisher for a value.
  /// - Returns: A publisher of the latest inner publisher's values.
  public func flatMapLatest<P: Publisher>(
    _ transform: @escaping (Output) -> P
  ) -> Publishers.SwitchToLatest<P, Publishers.Map<Self, P>> where P.Failure == Failure {
    map(transform).switchToLatest()
  }
}
