public import Foundation
public import SignalOperators

extension NotificationCenter {
  /// Snail's `observeEvent(_:object:)`: the same as `publisher(for:object:)`.
  ///
  /// ```swift
  /// let token = NotificationCenter.default.observeEvent(.userDidLogIn)
  ///   .subscribe(queue: .main, onNext: { _ in showHome() })
  /// ```
  ///
  /// Unlike Snail, the observer is removed when the subscription is cancelled.
  ///
  /// > Thread safety: The same as `Publisher`.
  ///
  /// - Parameters:
  ///   - name: The notification name to observe.
  ///   - object: The sender to observe, or `nil` for any sender.
  /// - Returns: A `Publisher`.
  public func observeEvent(
    _ name: Notification.Name,
    object: AnyObject? = nil
  ) -> NotificationCenter.Publisher {
    publisher(for: name, object: object)
  }
}
