import FutureKit
import SignalOperators
public import StreamCore

extension AsyncSequence where Self: SendableMetatype {
  /// A publisher that iterates this asynchronous sequence as its subscribers ask for values.
  ///
  /// ```swift
  /// let stream = AsyncStream<Int> { continuation in
  ///   for value in 1...3 { continuation.yield(value) }
  ///   continuation.finish()
  /// }
  /// let cancellable = stream.publisher.sink { print($0) }  // prints 1, 2, 3
  /// ```
  ///
  /// > Thread safety: See ``StreamCore/Publishers/AsyncSequence``.
  public var publisher: Publishers.AsyncSequence<Self> {
    Publishers.AsyncSequence(sequence: self)
  }
}

extension Publishers {
  /// A publisher that iterates an asynchronous sequence in a task, honouring demand.
  ///
  /// ```swift
  /// let cancellable = Publishers.AsyncSequence(sequence: stream).sink { print($0) }
  /// ```
  ///
  /// Each subscriber gets its own iteration. The task starts on the subscriber's first request
  /// and calls the sequence's `next()` only while the subscriber has outstanding demand, so a
  /// slow subscriber slows the iteration instead of growing a buffer. The sequence's end
  /// finishes the publisher and its error fails it. Cancelling the subscription cancels the
  /// task; nothing is delivered after that.
  ///
  /// > Thread safety: Values and the completion are delivered from the iterating task, one at a
  /// > time, on the cooperative thread pool. `request(_:)` and `cancel()` are safe from any
  /// > thread. The sequence is iterated by that one task only.
  public struct AsyncSequence<Base: _Concurrency.AsyncSequence & SendableMetatype>: Publisher {
    public typealias Output = Base.Element
    public typealias Failure = Base.Failure

    /// The sequence to iterate.
    public let sequence: Base

    /// Creates a publisher that iterates `sequence`.
    ///
    /// - Parameter sequence: The asynchronous sequence to iterate.
    public init(sequence: Base) {
      self.sequence = sequence
    }

    public func receive<S: Subscriber>(subscriber: S)
    where S.Input == Output, S.Failure == Failure {
      subscriber.receive(subscription: Inner(downstream: subscriber, sequence: sequence))
    }
  }
}

extension Publishers.AsyncSequence: Sendable where Base: Sendable {}

extension Publishers.AsyncSequence {
  /// ```
  /// idle --first request--> running (task started)
  /// running --next() returned nil / threw--> terminal (completion sent)
  /// idle / running --cancel()--> terminal (task cancelled)
  /// ```
  // Sendable: mutable state is guarded by `lock`; the downstream is called only by the task,
  // outside the lock, and `sequence` is read only by the task.
  private final class Inner<Downstream: Subscriber>: @unchecked Sendable, Subscription,
    CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible
  where Downstream.Input == Output, Downstream.Failure == Failure {
    private enum WaitAction { case proceed, stop, wait }

    private let lock = Lock()
    private var downstream: Downstream?
    private var sequence: Base?
    private var demand = Subscribers.Demand.none
    private var task: Task<Void, Never>?
    private var waiter: CheckedContinuation<Bool, Never>?

    init(downstream: Downstream, sequence: Base) {
      self.downstream = downstream
      self.sequence = sequence
    }

    var description: String { "AsyncSequence" }

    /// The `downstream` (`nil` once released) and its `demand` not yet met.
    var customMirror: Mirror {
      let (target, pending) = lock.withLock { (self.downstream, self.demand) }
      return Mirror(self, children: ["downstream": target as Any, "demand": pending])
    }

    var playgroundDescription: Any { description }

    func request(_ demand: Subscribers.Demand) {
      demand.assertPositive()
      let (start, resumed) = lock.withLock { () -> (Base?, CheckedContinuation<Bool, Never>?) in
        guard self.downstream != nil else { return (nil, nil) }
        self.demand += demand
        return (self.sequence.take(), self.waiter.take())
      }
      resumed?.resume(returning: true)
      guard let start else { return }
      let sequence = AsyncValuesTransfer(value: start)
      let task = Task { await self.run(sequence.value) }
      let cancelled = lock.withLock { () -> Bool in
        guard downstream != nil else { return true }
        self.task = task
        return false
      }
      if cancelled { task.cancel() }
    }

    func cancel() {
      // The sequence (whose deinit may run user code, like an `AsyncStream`'s `onTermination`)
      // is released after the lock, with the downstream.
      let (task, resumed, released, sequence) = lock.withLock {
        () -> (Task<Void, Never>?, CheckedContinuation<Bool, Never>?, Downstream?, Base?) in
        (self.task.take(), waiter.take(), downstream.take(), self.sequence.take())
      }
      task?.cancel()
      resumed?.resume(returning: false)
      withExtendedLifetime((released, sequence)) {}
    }

    /// Iterates while there is demand; runs in the task.
    private func run(_ sequence: Base) async {
      var iterator = sequence.makeAsyncIterator()
      while await waitForDemand() {
        switch await Self.next(&iterator) {
        case .success(let element?):
          guard deliver(element) else { return }
        case .success(nil):
          return finish(.finished)
        case .failure(let error):
          return finish(.failure(error))
        }
      }
    }

    private static func next(
      _ iterator: inout Base.AsyncIterator
    ) async -> Result<Base.Element?, Failure> {
      do {
        return .success(try await iterator.next(isolation: nil))
      } catch {
        return .failure(error)
      }
    }

    /// Sends `element` unless cancelled; `false` once cancelled.
    private func deliver(_ element: Base.Element) -> Bool {
      guard let target = takeOne() else { return false }
      let more = target.receive(element)
      if more > .none { add(more) }
      return true
    }

    /// The downstream, with one demand used; `nil` once cancelled.
    private func takeOne() -> Downstream? {
      lock.withLock { () -> Downstream? in
        if self.downstream != nil { self.demand -= 1 }
        return self.downstream
      }
    }

    private func add(_ more: Subscribers.Demand) {
      lock.withLock {
        if self.downstream != nil { self.demand += more }
      }
    }

    /// `true` once there is demand; `false` if cancelled first.
    private func waitForDemand() async -> Bool {
      let ready = lock.withLock { downstream != nil && demand > .none }
      if ready { return true }
      return await withCheckedContinuation { continuation in
        let action = lock.withLock { () -> WaitAction in
          guard downstream != nil else { return .stop }
          if demand > .none { return .proceed }
          waiter = continuation
          return .wait
        }
        switch action {
        case .proceed: continuation.resume(returning: true)
        case .stop: continuation.resume(returning: false)
        case .wait: break
        }
      }
    }

    private func finish(_ completion: Subscribers.Completion<Failure>) {
      let (released, _) = lock.withLock { () -> (Downstream?, Task<Void, Never>?) in
        (downstream.take(), task.take())  // both released after the lock
      }
      released?.receive(completion: completion)
    }
  }
}
