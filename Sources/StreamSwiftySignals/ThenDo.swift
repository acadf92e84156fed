import PropertyWrappers
public import SignalOperators
public import StreamCore

extension Publisher {
  /// Runs `action` with each value and passes the value on unchanged (SwiftySignals' `then(do:)`).
  ///
  /// ```swift
  /// let cancellable = signal.fired.then { print($0) }.sink { _ in }
  /// ```
  ///
  /// It is `handleEvents(receiveOutput:)`: demand and completion pass straight through, and
  /// `action` runs before the value goes downstream.
  ///
  /// After a ``Signal``'s or ``TimerSignal``'s ``EndPoint`` that is the main queue by default,
  /// as in SwiftySignals; `dispatch(to:)`, `dispatch(qos:)` and `noDispatch()` move it.
  ///
  /// > Thread safety: `action` runs where the upstream delivers, one value at a time, with no
  /// > lock held.
  ///
  /// - Parameter action: Called with each value.
  /// - Returns: A publisher that republishes the upstream's events.
  public func then(do action: @escaping (Output) -> Void) -> Publishers.HandleEvents<Self> {
    handleEvents(receiveOutput: action)
  }
}
