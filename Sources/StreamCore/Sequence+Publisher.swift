public import Synchronization

extension Sequence {
  /// A publisher that publishes the elements of this sequence, then finishes.
  ///
  /// ```swift
  /// let cancellable = [1, 2, 3].publisher.sink { print($0) }  // prints 1, 2, 3
  /// ```
  @inlinable
  public var publisher: Publishers.Sequence<Self, Never> {
    Publishers.Sequence(sequence: self)
  }
}

extension Publishers {
  /// A publisher that publishes a given sequence of elements.
  ///
  /// ```swift
  /// let cancellable = Publishers.Sequence<[Int], Never>(sequence: [1, 2, 3])
  ///   .sink { print($0) }  // prints 1, 2, 3
  /// ```
  ///
  /// Each subscriber gets its own iteration of ``sequence``, and receives elements as it
  /// requests them, never more than it has requested, then ``Subscribers/Completion/finished``
  /// straight after the last element, without waiting for further demand. The publisher reads
  /// one element ahead to know when to finish, so the first element is read at subscription
  /// time. An empty sequence hands the subscriber ``Subscriptions/empty`` and finishes at once.
  /// The publisher never fails. The subscription's description is the sequence's own while it
  /// is active, and `"Sequence"` once finished or cancelled.
  ///
  /// > Thread safety: A value type; `subscribe` may be called from any thread. Elements are
  /// > delivered on the thread that requests them, one call at a time; a request made from
  /// > inside `receive(_:)`, or from another thread during delivery, only adds demand for the
  /// > loop already delivering, so demanding one element at a time doesn't grow the stack.
  /// > `request(_:)` and `cancel()` are safe from any thread; the sequence's iterator is only
  /// > used by the delivering thread.
  public struct Sequence<Elements: Swift.Sequence, Failure: Error>: Publisher {
    /// The kind of values published by this publisher.
    public typealias Output = Elements.Element

    /// The sequence of elements to publish.
    public let sequence: Elements

    /// Creates a publisher for a sequence of elements.
    ///
    /// - Parameter sequence: The sequence of elements to publish.
    @inlinable
    public init(sequence: Elements) {
      self.sequence = sequence
    }

    /// Hands `subscriber` a subscription that iterates ``sequence`` as it requests elements.
    ///
    /// - Parameter subscriber: The subscriber to attach to this publisher.
    @inlinable
    public func receive<S: Subscriber>(subscriber: S)
    where S.Input == Output, S.Failure == Failure {
      var iterator = sequence.makeIterator()
      guard let first = iterator.next() else {
        subscriber.receive(subscription: Subscriptions.empty)
        subscriber.receive(completion: .finished)
        return
      }
      subscriber.receive(
        subscription: Inner(
          downstream: subscriber,
          sequence: sequence,
          iterator: iterator,
          next: first
        )
      )
    }
  }
}

extension Publishers.Sequence: Equatable where Elements: Equatable {}

extension Publishers.Sequence: Sendable where Elements: Sendable {}

extension Publishers.Sequence {
  /// The subscription: delivers elements in a loop run by one thread at a time.
  ///
  /// ```
  /// idle --request(_:)--> draining   (this thread delivers; its demand is kept in a local)
  /// draining --request(_:)--> draining   (adds to `demand`; the draining thread picks it up)
  /// draining --local demand used up, `demand` == .none--> idle   (iterator stored back)
  /// idle/draining --last element delivered--> terminal   (sends .finished)
  /// idle/draining --cancel()--> terminal
  /// ```
  ///
  /// The draining thread is the one whose claim of the serial drain (``SerialDrain``) succeeded;
  /// it releases the drain in the critical section that finds no demand left, as every serial
  /// drain does. Its loop is its own rather than `SerialDrain.run`: while draining, the
  /// iterator and the next element live in the draining thread's locals,
  /// and the lock is only taken when the local demand runs out, so unlimited demand, or demand
  /// topped up by each `receive(_:)`, costs no lock per element. Cancellation is seen between
  /// elements through the `cancelled` flag.
  // While `drain` is claimed, only the draining thread uses the iterator (checked out of the
  // state) and calls the downstream, outside the lock.
  @usableFromInline
  // Sendable: the other mutable state is guarded by `lock`; `cancelled` is atomic.
  final class Inner<Downstream: Subscriber>: @unchecked Sendable, Subscription,
    CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible
  where Downstream.Input == Elements.Element, Downstream.Failure == Failure {
    @usableFromInline
    let lock = Lock()

    /// Set by `cancel()`; read by the draining thread between elements.
    @usableFromInline
    let cancelled = Atomic<Bool>(false)

    /// `nil` once terminal.
    @usableFromInline
    var downstream: Downstream?

    /// Kept for the description; `nil` once terminal.
    @usableFromInline
    var sequence: Elements?

    /// Demand requested while another thread is draining.
    @usableFromInline
    var demand = Subscribers.Demand.none

    /// Claimed by the thread that delivers.
    @usableFromInline
    var drain = SerialDrain()

    /// `nil` while checked out by the draining thread, and once terminal.
    @usableFromInline
    var iterator: Elements.Iterator?

    /// The element to deliver next, read ahead; `nil` like `iterator`.
    @usableFromInline
    var next: Elements.Element?

    @inlinable
    init(downstream: Downstream, sequence: Elements, iterator: Elements.Iterator, next: Output) {
      self.downstream = downstream
      self.sequence = sequence
      self.iterator = iterator
      self.next = next
    }

    @inlinable
    func request(_ demand: Subscribers.Demand) {
      guard demand > .none else { return }  // Combine ignores request(.none) here
      let checkout = lock.withLock { () -> (Downstream, Elements.Iterator, Output)? in
        guard let downstream, drain.claim() else {
          self.demand += demand  // meaningless once terminal, harmless
          return nil
        }
        guard let iterator = iterator.take(), let next = next.take() else {
          preconditionFailure("Publishers.Sequence: idle subscription without an iterator")
        }
        return (downstream, iterator, next)
      }
      guard let (downstream, iterator, next) = checkout else { return }
      deliver(downstream, iterator, next, demand)
    }

    /// Delivers elements while there is demand; only one thread at a time runs it.
    @inlinable
    func deliver(
      _ downstream: Downstream,
      _ iterator: Elements.Iterator,
      _ first: Output,
      _ demand: Subscribers.Demand
    ) {
      var iterator = iterator
      var element = first
      var demand = demand
      while demand != .unlimited {
        demand -= 1
        demand += downstream.receive(element)
        if cancelled.load(ordering: .relaxed) { return }
        guard let following = iterator.next() else { return finish(downstream) }
        element = following
        if demand == .none {
          demand = lock.withLock { () -> Subscribers.Demand in
            if self.downstream == nil { return .none }  // cancelled
            if self.demand == .none {
              self.iterator = iterator
              next = element
              drain.release()
            }
            defer { self.demand = .none }
            return self.demand
          }
          if demand == .none { return }
        }
      }
      while true {
        _ = downstream.receive(element)  // unlimited plus anything stays unlimited
        if cancelled.load(ordering: .relaxed) { return }
        guard let following = iterator.next() else { return finish(downstream) }
        element = following
      }
    }

    /// Sends `.finished` unless cancelled, and releases the downstream.
    @inlinable
    func finish(_ downstream: Downstream) {
      let released = lock.withLock { () -> (Downstream, Elements?)? in
        guard let downstream = self.downstream.take() else { return nil }
        return (downstream, sequence.take())
      }
      guard released != nil else { return }
      downstream.receive(completion: .finished)
    }

    @inlinable
    func cancel() {
      let released = lock.withLock {
        () -> (Downstream?, Elements?, Elements.Iterator?, Output?) in
        cancelled.store(true, ordering: .relaxed)
        return (downstream.take(), sequence.take(), iterator.take(), next.take())
      }
      _ = released
    }

    @usableFromInline
    var description: String {
      guard let sequence = lock.withLock({ sequence }) else { return "Sequence" }
      return String(describing: sequence)
    }

    /// As Combine's: the `sequence` still to send; an empty array once it was sent or the
    /// subscription was cancelled.
    @usableFromInline
    var customMirror: Mirror {
      guard let sequence = lock.withLock({ sequence }) else {
        return Mirror(self, children: ["sequence": [Elements.Element]()])
      }
      return Mirror(self, children: ["sequence": sequence])
    }

    @usableFromInline
    var playgroundDescription: Any { description }
  }
}
