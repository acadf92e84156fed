public import StreamCore

extension Future {
  /// Attaches a subscriber with closure-based behavior, as `Publisher`'s `sink` does: it
  /// requests unlimited values, and the returned token cancels the subscription.
  ///
  /// ```swift
  /// let cancellable = future.sink(
  ///   receiveCompletion: { print("completion:", $0) },
  ///   receiveValue: { print("value:", $0) }
  /// )
  /// ```
  ///
  /// Cheaper than the general `sink`: the future's own subscription calls the closures, so
  /// attaching takes one allocation fewer.
  ///
  /// > Thread safety: May be called from any thread; the closures run on the thread that
  /// > completes the future or that subscribes, never two at once.
  ///
  /// - Parameters:
  ///   - receiveCompletion: The closure to execute on completion.
  ///   - receiveValue: The closure to execute on receipt of a value.
  /// - Returns: A cancellable that cancels the subscription.
  @inlinable
  public func sink(
    receiveCompletion: @escaping (Subscribers.Completion<Failure>) -> Void,
    receiveValue: @escaping (Output) -> Void
  ) -> AnyCancellable {
    // A pending future that nothing else waits for keeps the closures itself: no subscription
    // object. The token's closure captures the future alone (its context, no allocation).
    let sink = ClosureSink(receiveCompletion: receiveCompletion, receiveValue: receiveValue)
    // A pending future that nothing else waits for keeps the closures itself: no subscription
    // object. Either way the token's closure captures one object (its context: no allocation),
    // and the token is made on one path, so the optimiser can keep it on the stack when it
    // doesn't escape.
    let cancel: @Sendable () -> Void
    if keepSink(sink) {
      cancel = { [self] in cancelKeptSink() }
    } else {
      let subscription = attach(sink)
      cancel = { subscription.specialisedCancel() }
    }
    return AnyCancellable(cancel)
  }
}

extension Future where Failure == Never {
  /// Attaches a subscriber with closure-based behavior to a future that never fails, as
  /// `Publisher`'s `sink(receiveValue:)` does, with one allocation fewer.
  ///
  /// ```swift
  /// let cancellable = Future<Int, Never> { $0(.success(1)) }.sink { print($0) }
  /// ```
  ///
  /// > Thread safety: May be called from any thread; the closure runs on the thread that
  /// > completes the future or that subscribes.
  ///
  /// - Parameter receiveValue: The closure to execute on receipt of a value.
  /// - Returns: A cancellable that cancels the subscription.
  @inlinable
  public func sink(receiveValue: @escaping (Output) -> Void) -> AnyCancellable {
    sink(receiveCompletion: { _ in }, receiveValue: receiveValue)
  }
}
