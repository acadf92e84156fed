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

  /// Snail's `observeEvent(_:object:)`: the same as ``publisher(for:object:)``.
  ///
  /// ```swift
  /// let token = NotificationCenter.default.observeEvent(.userDidLogIn)
  ///   .subscribe(queue: .main, onNext: { _ in showHome() })
  /// ```
  ///
  /// Unlike Snail, the observer is removed when the subscription is cancelled.
  ///
  /// > Thread safety: The same as ``NotificationCenter/Publisher``.
  ///
  /// - Parameters:
  ///   - name: The notification name to observe.
  ///   - object: The sender to observe, or `nil` for any sender.
  /// - Returns: A ``NotificationCenter/Publisher``.
  public func observeEvent(
    _ name: Notification.Name,
    object: AnyObject? = nil
  ) -> NotificationCenter.Publisher {
    publisher(for: name, object: object)
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
      let inner = Inner(downstream: subscriber, center: center)
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
  // outside it, and only the thread that set `draining` calls the downstream.
  private final class Inner<Downstream: Subscriber>: @unchecked Sendable, Subscription,
    CustomStringConvertible
  where Downstream.Input == Notification, Downstream.Failure == Never {
    private let lock = Lock()
    private var downstream: Downstream?
    private var center: NotificationCenter?
    private var observer: (any NSObjectProtocol)?
    private var demand = Subscribers.Demand.none
    /// Notifications accepted (their demand taken) but not yet delivered.
    private var pending: [Notification] = []
    private var draining = false

    var description: String { "NotificationCenter Observer" }

    init(downstream: Downstream, center: NotificationCenter) {
      self.downstream = downstream
      self.center = center
    }

    /// Keeps the observer token, or removes it at once if already cancelled.
    func start(observer: any NSObjectProtocol, on center: NotificationCenter) {
      let cancelled = lock.withLock { () -> Bool in
        guard self.center != nil else { return true }
        self.observer = observer
        return false
      }
      if cancelled { center.removeObserver(observer) }
    }

    /// Called by the center on the posting thread.
    func post(_ notification: Notification) {
      let drain = lock.withLock { () -> Bool in
        guard downstream != nil, demand > .none else { return false }
        demand -= 1
        pending.append(notification)
        guard !draining else { return false }
        draining = true
        return true
      }
      if drain { self.drain() }
    }

    private func drain() {
      while true {
        let next = lock.withLock { () -> (Downstream, Notification)? in
          guard let downstream, !pending.isEmpty else {
            draining = false
            return nil
          }
          return (downstream, pending.removeFirst())
        }
        guard let (downstream, notification) = next else { return }
        let more = downstream.receive(notification)
        if more > .none { lock.withLock { demand += more } }
      }
    }

    func request(_ demand: Subscribers.Demand) {
      demand.assertPositive()
      lock.withLock { self.demand += demand }
    }

    func cancel() {
      let released = lock.withLock {
        () -> (NotificationCenter?, (any NSObjectProtocol)?, Downstream?, [Notification]) in
        defer { pending = [] }
        return (center.take(), observer.take(), downstream.take(), pending)
      }
      if let center = released.0, let observer = released.1 {
        center.removeObserver(observer)
      }
    }
  }
}
