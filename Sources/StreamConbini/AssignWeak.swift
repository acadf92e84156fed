import FutureKit
import SignalOperators
public import StreamCore

extension Publisher where Failure == Never {
  /// Assigns each value to a property of an object held weakly, and cancels the subscription
  /// once the object is gone.
  ///
  /// ```swift
  /// final class Model {
  ///   var count = 0
  ///   var cancellable: AnyCancellable?
  ///   func bind(to counts: some Publisher<Int, Never>) {
  ///     cancellable = counts.assign(to: \.count, onWeak: self)  // no retain cycle
  ///   }
  /// }
  /// ```
  ///
  /// Requests unlimited values. The first value that finds the object deallocated cancels the
  /// subscription instead of assigning. After completion or cancel the subscription is released.
  ///
  /// > Thread safety: Assignments happen on the thread the publisher delivers on. The returned
  /// > token may be cancelled from any thread.
  ///
  /// - Parameters:
  ///   - keyPath: The property to assign.
  ///   - object: The object that holds the property; not retained.
  /// - Returns: A cancellable that cancels the subscription.
  public func assign<Root: AnyObject>(
    to keyPath: ReferenceWritableKeyPath<Root, Output>,
    onWeak object: Root
  ) -> AnyCancellable {
    let sink = TargetSink<Output>(description: "Assign \(Root.self).") {
      [weak object] value in
      guard let object else { return false }
      object[keyPath: keyPath] = value
      return true
    }
    subscribe(sink)
    return AnyCancellable(sink)
  }

  /// Assigns each value to a property of an object held unowned.
  ///
  /// ```swift
  /// cancellable = counts.assign(to: \.count, onUnowned: self)
  /// ```
  ///
  /// Requests unlimited values. The object must outlive the subscription: a value that arrives
  /// after it is deallocated traps, as any `unowned` reference does.
  ///
  /// > Thread safety: Assignments happen on the thread the publisher delivers on. The returned
  /// > token may be cancelled from any thread.
  ///
  /// - Parameters:
  ///   - keyPath: The property to assign.
  ///   - object: The object that holds the property; not retained.
  /// - Returns: A cancellable that cancels the subscription.
  public func assign<Root: AnyObject>(
    to keyPath: ReferenceWritableKeyPath<Root, Output>,
    onUnowned object: Root
  ) -> AnyCancellable {
    let sink = TargetSink<Output>(description: "Assign \(Root.self).") {
      [unowned object] value in
      object[keyPath: keyPath] = value
      return true
    }
    subscribe(sink)
    return AnyCancellable(sink)
  }
}
