extension Subscribers {
  /// A simple subscriber that assigns received elements to a property indicated by a key path.
  ///
  /// ```swift
  /// final class Model { var count = 0 }
  /// let model = Model()
  /// let cancellable = [1, 2, 3].publisher.assign(to: \.count, on: model)  // model.count == 3
  /// ```
  ///
  /// Requests unlimited values. The object is held strongly until completion or cancel, then
  /// released. Its description is `"Assign <Root>."`.
  ///
  /// > Thread safety: Assignments happen on the thread the publisher delivers on.
  /// > ``cancel()`` may be called from any thread.
  // Sendable: `object` and the subscription are guarded by `lock`; the key path is a value.
  public final class Assign<Root, Input>: Subscriber, Cancellable, CustomStringConvertible,
    CustomReflectable, CustomPlaygroundDisplayConvertible, @unchecked Sendable
  {
    public typealias Failure = Never

    private enum State {
      case awaitingSubscription(Root)
      case subscribed(Root, any Subscription)
      case closed
    }

    private let lock = Lock()
    private var state: State

    /// The key path that indicates the property to assign.
    public let keyPath: ReferenceWritableKeyPath<Root, Input>

    /// The object that contains the property to assign, until completion or cancel.
    public var object: Root? {
      lock.withLock {
        switch state {
        case .awaitingSubscription(let object), .subscribed(let object, _): object
        case .closed: nil
        }
      }
    }

    /// Creates a subscriber to assign the value of a property indicated by a key path.
    ///
    /// - Parameters:
    ///   - object: The object that contains the property.
    ///   - keyPath: The key path of the property to assign.
    public init(object: Root, keyPath: ReferenceWritableKeyPath<Root, Input>) {
      self.state = .awaitingSubscription(object)
      self.keyPath = keyPath
    }

    /// Keeps the first subscription and requests unlimited values; cancels any later one.
    public func receive(subscription: any Subscription) {
      let accepted = lock.withLock { () -> Bool in
        guard case .awaitingSubscription(let object) = state else { return false }
        state = .subscribed(object, subscription)
        return true
      }
      if accepted {
        subscription.request(.unlimited)
      } else {
        subscription.cancel()
      }
    }

    /// Assigns the value to the object's property.
    public func receive(_ value: Input) -> Subscribers.Demand {
      let target = lock.withLock { () -> Root? in
        guard case .subscribed(let object, _) = state else { return nil }
        return object
      }
      if let target {
        target[keyPath: keyPath] = value
      }
      return .none
    }

    /// Releases the object and the subscription.
    public func receive(completion: Subscribers.Completion<Never>) {
      let released = lock.withLock { () -> State in
        defer { state = .closed }
        return state
      }
      _ = released  // the object may own this subscriber's token: release it outside the lock
    }

    /// Cancels the subscription and releases the object.
    public func cancel() {
      let released = lock.withLock { () -> State in
        defer { state = .closed }
        return state
      }
      if case .subscribed(_, let subscription) = released {
        subscription.cancel()
      }
    }

    /// `"Assign <Root>."`.
    public var description: String { "Assign \(Root.self)." }

    /// The object, the key path and where the subscription is, as Combine's mirror shows them.
    public var customMirror: Mirror {
      let (object, status) = lock.withLock { () -> (Root?, SubscriptionStatus) in
        switch state {
        case .awaitingSubscription(let object): (object, .awaitingSubscription)
        case .subscribed(let object, let upstream): (object, .subscribed(upstream))
        case .closed: (nil, .terminal)
        }
      }
      return Mirror(
        self,
        children: ["object": object as Any, "keyPath": keyPath, "status": status]
      )
    }

    /// The description.
    public var playgroundDescription: Any { description }
  }
}

extension Publisher where Failure == Never {
  /// Assigns each element from a publisher to a property on an object.
  ///
  /// ```swift
  /// let cancellable = subject.assign(to: \.title, on: label)
  /// ```
  ///
  /// The object is retained until the publisher completes or the token is cancelled.
  ///
  /// - Parameters:
  ///   - keyPath: A key path that indicates the property to assign.
  ///   - object: The object that contains the property.
  /// - Returns: A cancellable that cancels the subscription.
  public func assign<Root>(
    to keyPath: ReferenceWritableKeyPath<Root, Output>,
    on object: Root
  ) -> AnyCancellable {
    let assign = Subscribers.Assign(object: object, keyPath: keyPath)
    subscribe(assign)
    return AnyCancellable(assign)
  }
}
