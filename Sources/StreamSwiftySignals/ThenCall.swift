import PropertyWrappers
public import SignalOperators
public import StreamCore

extension Publisher {
  /// Calls a method of `target`, held weakly, with each value and passes the value on unchanged
  /// (SwiftySignals' `then(call:on:)`).
  ///
  /// ```swift
  /// let cancellable = model.fired.then(call: Screen.update, on: self).sink { _ in }
  /// ```
  ///
  /// Once `target` is deallocated the call is skipped, but values keep flowing (unlike
  /// `invoke(_:onWeak:)`, which cancels). Demand and completion pass straight through.
  ///
  /// After a ``Signal``'s or ``TimerSignal``'s ``EndPoint`` the method runs on the main queue by
  /// default, as in SwiftySignals.
  ///
  /// > Thread safety: The method runs where the upstream delivers, one value at a time, with no
  /// > lock held.
  ///
  /// - Parameters:
  ///   - method: The method to call, as an unapplied reference such as `Type.method`.
  ///   - target: The object the method is called on; not retained.
  /// - Returns: A publisher that republishes the upstream's events.
  public func then<Target: AnyObject>(
    call method: @escaping (Target) -> (Output) -> Void,
    on target: Target
  ) -> Publishers.HandleEvents<Self> {
    handleEvents(receiveOutput: { [weak target] value in
      guard let target else { return }
      method(target)(value)
    })
  }
}
