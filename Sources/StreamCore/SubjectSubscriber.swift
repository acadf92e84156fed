extension Publisher {
  /// Attaches the specified subject to this publisher.
  ///
  /// ```swift
  /// let relay = PassthroughSubject<Int, Never>()
  /// let cancellable = [1, 2].publisher.subscribe(relay)
  /// ```
  ///
  /// The subject receives a subscription through `send(subscription:)` and then the upstream's
  /// values and completion.
  ///
  /// - Parameter subject: The subject to attach to this publisher.
  /// - Returns: A cancellable that cancels the upstream subscription. As in Combine, the subject
  ///   is held weakly: keep it, or the subscription ends when it goes away.
  @inlinable
  public func subscribe<S: Subject>(_ subject: S) -> AnyCancellable
  where Output == S.Output, Failure == S.Failure {
    // Inlinable, like `SubjectSubscriber.receive(_:)`: each value reaches the subject through
    // code specialised for the upstream and the subject (`multicast`, `share(replay:)`).
    let subscriber = SubjectSubscriber(subject)
    receive(subscriber: subscriber)
    return AnyCancellable(subscriber)
  }
}

/// A subject that keeps the upstream subscriptions it is sent and can let go of one that ended.
///
/// `SubjectSubscriber` tells it when its upstream completes or is cancelled, so that a subject
/// subscribed to many upstreams over time keeps only the live ones.
package protocol UpstreamReleasingSubject: AnyObject {
  /// Drops `subscription` from the subject's upstreams, if it is there.
  func releaseUpstream(_ subscription: any Subscription)
}

/// Feeds an upstream publisher into a subject, and is the subscription the subject receives.
// Sendable: all mutable state is guarded by `lock`; the subject is called outside the lock from
// upstream's delivery, which never overlaps with itself.
@usableFromInline
final class SubjectSubscriber<Downstream: Subject>: @unchecked Sendable, Subscriber,
  Subscription, CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible
{
  @usableFromInline
  typealias Input = Downstream.Output
  @usableFromInline
  typealias Failure = Downstream.Failure

  /// The subject, held weakly, as Combine's subscriber holds it: a subject nobody else keeps
  /// goes away while connected (OpenCombine's
  /// `MulticastTests.testDeallocateConnectedMulticastBeforeCancelling`), and its deinit cancels
  /// its upstreams, this one too.
  @usableFromInline
  struct WeakSubject {
    @usableFromInline weak var subject: Downstream?

    @inlinable
    init(_ subject: Downstream) { self.subject = subject }
  }

  @usableFromInline
  enum State {
    case awaitingSubscription(WeakSubject)
    case subscribed(WeakSubject, any Subscription)
    case terminal
  }

  @usableFromInline
  let lock = Lock()
  @usableFromInline
  @exclusivity(unchecked) var state: State

  @inlinable
  init(_ subject: Downstream) {
    state = .awaitingSubscription(WeakSubject(subject))
  }

  @usableFromInline
  func receive(subscription: any Subscription) {
    let subject = lock.withLock { () -> Downstream? in
      guard case .awaitingSubscription(let weak) = state, let subject = weak.subject else {
        return nil
      }
      state = .subscribed(weak, subscription)
      return subject
    }
    guard let subject else {
      subscription.cancel()
      return
    }
    subject.send(subscription: self)
  }

  @inlinable
  func receive(_ input: Input) -> Subscribers.Demand {
    let subject = lock.withLock { () -> Downstream? in
      guard case .subscribed(let weak, _) = state else { return nil }
      return weak.subject
    }
    subject?.send(input)
    return .none
  }

  @usableFromInline
  func receive(completion: Subscribers.Completion<Failure>) {
    let released = lock.withLock { () -> State in
      defer { state = .terminal }
      return state
    }
    if case .subscribed(let weak, _) = released, let subject = weak.subject {
      (subject as? any UpstreamReleasingSubject)?.releaseUpstream(self)
      subject.send(completion: completion)
    }
  }

  @usableFromInline
  func request(_ demand: Subscribers.Demand) {  // passed on as it is, even .none, as Combine's
    let upstream = lock.withLock { () -> (any Subscription)? in
      guard case .subscribed(_, let upstream) = state else { return nil }
      return upstream
    }
    upstream?.request(demand)
  }

  @usableFromInline
  func cancel() {
    let released = lock.withLock { () -> State in
      defer { state = .terminal }
      return state
    }
    if case .subscribed(let weak, let upstream) = released {
      upstream.cancel()
      (weak.subject as? any UpstreamReleasingSubject)?.releaseUpstream(self)
    }
  }

  @usableFromInline
  var description: String { "Subject" }

  /// The subject and the upstream's subscription, under the labels of Combine's mirror (which
  /// shows the subject twice).
  @usableFromInline
  var customMirror: Mirror {
    let (subject, upstream) = lock.withLock { () -> (Downstream?, (any Subscription)?) in
      switch state {
      case .awaitingSubscription(let weak): (weak.subject, nil)
      case .subscribed(let weak, let upstream): (weak.subject, upstream)
      case .terminal: (nil, nil)
      }
    }
    return Mirror(
      self,
      children: [
        "downstreamSubject": subject as Any,
        "upstreamSubscription": upstream as Any,
        "subject": subject as Any,
      ]
    )
  }

  @usableFromInline
  var playgroundDescription: Any { description }
}
