import FutureKit
import SignalOperators
public import StreamCore

extension Publisher where Failure == Never {
  /// Calls a method of `instance` with each value.
  ///
  /// ```swift
  /// struct Logger { func log(_ value: Int) { print(value) } }
  /// let cancellable = [1, 2, 3].publisher.invoke(Logger.log, on: Logger())
  /// ```
  ///
  /// Requests unlimited values. `instance` is held strongly until completion or cancel, then
  /// released.
  ///
  /// > Thread safety: The method runs on the thread the publisher delivers on. The returned
  /// > token may be cancelled from any thread.
  ///
  /// - Parameters:
  ///   - method: The method to call, as an unapplied reference such as `Type.method`.
  ///   - instance: The value or object the method is called on.
  /// - Returns: A cancellable that cancels the subscription.
  public func invoke<V>(
    _ method: @escaping (V) -> (Output) -> Void,
    on instance: V
  ) -> AnyCancellable {
    let sink = TargetSink<Output>(description: "Invoke \(V.self).") { value in
      method(instance)(value)
      return true
    }
    subscribe(sink)
    return AnyCancellable(sink)
  }

  /// Calls a method of an object held weakly with each value, and cancels the subscription once
  /// the object is gone.
  ///
  /// ```swift
  /// cancellable = events.invoke(Screen.render, onWeak: self)  // no retain cycle
  /// ```
  ///
  /// Requests unlimited values. The first value that finds the object deallocated cancels the
  /// subscription instead of calling the method.
  ///
  /// > Thread safety: The method runs on the thread the publisher delivers on. The returned
  /// > token may be cancelled from any thread.
  ///
  /// - Parameters:
  ///   - method: The method to call, as an unapplied reference such as `Type.method`.
  ///   - object: The object the method is called on; not retained.
  /// - Returns: A cancellable that cancels the subscription.
  public func invoke<V: AnyObject>(
    _ method: @escaping (V) -> (Output) -> Void,
    onWeak object: V
  ) -> AnyCancellable {
    let sink = TargetSink<Output>(description: "Invoke \(V.self).") { [weak object] value in
      guard let object else { return false }
      method(object)(value)
      return true
    }
    subscribe(sink)
    return AnyCancellable(sink)
  }

  /// Calls a method of an object held unowned with each value.
  ///
  /// ```swift
  /// cancellable = events.invoke(Screen.render, onUnowned: self)
  /// ```
  ///
  /// Requests unlimited values. The object must outlive the subscription: a value that arrives
  /// after it is deallocated traps, as any `unowned` reference does.
  ///
  /// > Thread safety: The method runs on the thread the publisher delivers on. The returned
  /// > token may be cancelled from any thread.
  ///
  /// - Parameters:
  ///   - method: The method to call, as an unapplied reference such as `Type.method`.
  ///   - object: The object the method is called on; not retained.
  /// - Returns: A cancellable that cancels the subscription.
  public func invoke<V: AnyObject>(
    _ method: @escaping (V) -> (Output) -> Void,
    onUnowned object: V
  ) -> AnyCancellable {
    let sink = TargetSink<Output>(description: "Invoke \(V.self).") { [unowned object] value in
      method(object)(value)
      return true
    }
    subscribe(sink)
    return AnyCancellable(sink)
  }
}
