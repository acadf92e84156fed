public import Foundation
public import StreamCore

extension NotificationCenter {
  /// Returns a publisher that emits the notifications this center posts with `name`.
  ///
  /// ```swift
  /// let token = NotificationCenter.default.publisher(for: .userDidLogIn)
  ///   .sink { note in print("logged in:", note.object ?? "?") }
  /// ```
  ///
  /// > Thread safety: The same as ``NotificationCenter/Publisher``.
  ///
  /// - Parameters:
  ///   - name: The notification name to observe.
  ///   - object: The sender to observe, or `nil` for any sender.
  /// - Returns: A ``NotificationCenter/Publisher``.
  public func publisher(
    for name: Notification.Name,
    object: AnyObject? = nil
  ) -> NotificationCenter.Publisher {
    Publisher(center: self, name: name, object: object)
  }

  /// A publisher that emits the notifications a center posts with a name.
  ///
  /// ```swift
  /// let logins = NotificationCenter.Publisher(center: .default, name: .userDidLogIn)
  /// let token = logins.sink { note in print(note.name) }
  /// ```
  ///
  /// Each subscription adds an observer to `center` and removes it when cancelled. A
  /// notification posted while there is no demand is dropped; it never fails or finishes.
  /// Notifications are delivered on the posting thread; if another thread is delivering at the
  /// same time, that thread delivers it right after its own, so the subscriber is never called
  /// concurrently.
  ///
  /// > Thread safety: Notifications may be posted from any thread; cancel from any thread.
  public struct Publisher: StreamCore.Publisher {
    public typealias Output = Notification
    public typealias Failure = Never

    /// The center that posts the notifications.
    public let center: NotificationCenter
    /// The notification name observed.
    public let name: Notification.Name
    /// The sender observed, or `nil` for any sender.
    public let object: AnyObject?

    /// Creates a publisher for the notifications `center` posts with `name`.
    ///
    /// - Parameters:
    ///   - center: The center that posts the notifications.
    ///   - name: The notification name to observe.
    ///   - object: The sender to observe, or `nil` for any sender.
    public init(center: NotificationCenter, name: Notification.Name, object: AnyObject? = nil) {
      self.center = center
      self.name = name
      self.object = object
    }

    public func receive<S: Subscriber>(subscriber: S)
    where S.Input == Notification, S.Failure == Never {
      let inner = Inner(downstream: subscriber, center: center, name: name, object: object)
      let observer = center.addObserver(forName: name, object: object, queue: nil) { note in
        inner.post(note)
      }
      inner.start(observer: observer, on: center)
      subscriber.receive(subscription: inner)
    }
  }
}

extension NotificationCenter.Publisher {
  // Sendable: all mutable state is guarded by `lock`; the downstream and the center are called
  // outside it, and only the thread that claimed the drain calls the downstream.
  private final class Inner<Downstream: Subscriber>: @unchecked Sendable, Subscription,
    CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible
  where Downstream.Input == Notification, Downstream.Failure == Never {
    /// ```
    /// active --start(observer:)--> active (observer kept)
    /// active --post(_:) with demand--> active (queued; the posting thread drains if it claims)
    /// active --cancel()--> cancelled (observer removed after the lock)
    /// ```
    private enum State {
      case active(Active)
      case cancelled
    }

    private struct Active {
      var downstream: Downstream
      var center: NotificationCenter
      /// The sender observed, or `nil` for any sender.
      var object: AnyObject?
      /// `nil` until the center has returned it.
      var observer: (any NSObjectProtocol)?
      var demand = Subscribers.Demand.none
      /// Notifications accepted (their demand taken) but not yet delivered.
      var pending = RingBuffer<Notification>()
      var drain = SerialDrain()
    }

    /// What `cancel()` takes out of the state, released (and the observer removed) after the
    /// lock.
    private struct Released {
      var downstream: Downstream
      var center: NotificationCenter
      var observer: (any NSObjectProtocol)?
      var pending: RingBuffer<Notification>
    }

    private let lock = Lock()
    private var state: State
    private let name: Notification.Name

    var description: String { "NotificationCenter Observer" }

    /// As Combine's: the `center`, the `name`, the `object` observed and the `demand` not yet
    /// met; after the cancel the center and the object read `nil`.
    var customMirror: Mirror {
      let (center, object, demand) = lock.withLock {
        () -> (NotificationCenter?, AnyObject?, Subscribers.Demand) in
        guard case .active(let active) = state else { return (nil, nil, .none) }
        return (active.center, active.object, active.demand)
      }
      return Mirror(
        self,
        children: [
          "center": center as Any, "name": name, "object": object as Any, "demand": demand,
        ]
      )
    }

    var playgroundDescription: Any { description }

    init(
      downstream: Downstream,
      center: NotificationCenter,
      name: Notification.Name,
      object: AnyObject?
    ) {
      self.name = name
      state = .active(Active(downstream: downstream, center: center, object: object))
    }

    /// Keeps the observer token, or removes it at once if already cancelled.
    func start(observer: any NSObjectProtocol, on center: NotificationCenter) {
      let cancelled = lock.withLock { () -> Bool in
        guard case .active(var active) = state else { return true }
        active.observer = observer
        state = .active(active)
        return false
      }
      if cancelled { center.removeObserver(observer) }
    }

    /// Called by the center on the posting thread.
    func post(_ notification: Notification) {
      let claimed = lock.withLock { () -> Bool in
        guard case .active(var active) = state, active.demand > .none else { return false }
        state = .cancelled  // keeps `active` uniquely referenced while it changes
        active.demand -= 1
        active.pending.append(notification)
        let claimed = active.drain.claim()
        state = .active(active)
        return claimed
      }
      if claimed { drain() }
    }

    private func drain() {
      var more = Subscribers.Demand.none
      SerialDrain.run(lock) { () -> (Downstream, Notification)? in
        guard case .active(var active) = state else { return nil }
        state = .cancelled
        defer { state = .active(active) }
        active.demand += more
        guard let notification = active.pending.popFirst() else {
          active.drain.release()
          return nil
        }
        return (active.downstream, notification)
      } perform: { next in
        let (downstream, notification) = next
        more = downstream.receive(notification)
        return true
      }
    }

    func request(_ demand: Subscribers.Demand) {
      guard demand > .none else { return }  // Combine ignores request(.none) here
      lock.withLock {
        guard case .active(var active) = state else { return }
        active.demand += demand
        state = .active(active)
      }
    }

    func cancel() {
      let released = lock.withLock { () -> Released? in
        guard case .active(let active) = state else { return nil }
        state = .cancelled
        return Released(
          downstream: active.downstream,
          center: active.center,
          observer: active.observer,
          pending: active.pending
        )
      }
      if let released, let observer = released.observer {
        released.center.removeObserver(observer)
      }
    }
  }
}
