public import StreamCore

extension Publisher {
  /// Buffers values from the upstream until the downstream asks for them.
  ///
  /// ```swift
  /// sensor.readings
  ///   .buffer(size: 100, prefetch: .keepFull, whenFull: .dropOldest)
  ///   .sink(receiveCompletion: { _ in }, receiveValue: { store($0) })
  /// ```
  ///
  /// With ``StreamCore/Publishers/PrefetchStrategy/keepFull`` the operator requests `size`
  /// values as soon as it is subscribed, and one more each time a value goes downstream, so the
  /// buffer stays full. With ``StreamCore/Publishers/PrefetchStrategy/byRequest`` it passes each
  /// downstream request on to the upstream. A value that arrives while `size` values are
  /// buffered is handled by `whenFull`: dropped, or kept in place of the oldest, or the stream
  /// fails with the strategy's error (upstream is cancelled and the buffered values are
  /// dropped). Buffered values go downstream in order as demand arrives, and the upstream's
  /// completion goes downstream after them.
  ///
  /// > Thread safety: Upstream may send from any thread. A value goes downstream either on the
  /// > thread that sent it or on the thread whose `request(_:)` made room for it, never from two
  /// > threads at once and never recursively. `request(_:)` and `cancel()` are safe from any
  /// > thread; nothing is delivered after `cancel()` returns on the delivering thread.
  ///
  /// - Parameters:
  ///   - size: The most values to hold; must be greater than zero.
  ///   - prefetch: When to request values from the upstream.
  ///   - whenFull: What to do with a value that arrives while the buffer is full.
  /// - Returns: A publisher that buffers upstream values.
  public func buffer(
    size: Int,
    prefetch: Publishers.PrefetchStrategy,
    whenFull: Publishers.BufferingStrategy<Failure>
  ) -> Publishers.Buffer<Self> {
    Publishers.Buffer(upstream: self, size: size, prefetch: prefetch, whenFull: whenFull)
  }
}

extension Publishers {
  /// When a buffer requests values from its upstream.
  ///
  /// ```swift
  /// upstream.buffer(size: 10, prefetch: .byRequest, whenFull: .dropNewest)
  /// ```
  ///
  /// > Thread safety: A `Sendable` value.
  public enum PrefetchStrategy: Hashable, Sendable {
    /// Request `size` values at once and one more for each value sent downstream.
    case keepFull

    /// Pass each downstream request on to the upstream.
    case byRequest
  }

  /// What a buffer does with a value that arrives while it is full.
  ///
  /// ```swift
  /// upstream.buffer(size: 10, prefetch: .keepFull, whenFull: .customError { MyError.overflow })
  /// ```
  ///
  /// > Thread safety: A value type. The `customError` closure runs on the thread that sent the
  /// > value that overflowed the buffer.
  public enum BufferingStrategy<Failure: Error> {
    /// Drop the value that arrived.
    case dropNewest

    /// Drop the oldest buffered value and keep the one that arrived.
    case dropOldest

    /// Cancel the upstream and fail with the error the closure makes.
    case customError(() -> Failure)
  }

  /// A publisher that buffers values from its upstream until the downstream asks for them.
  ///
  /// ```swift
  /// let buffered = Publishers.Buffer(
  ///   upstream: values, size: 3, prefetch: .keepFull, whenFull: .dropNewest)
  /// ```
  ///
  /// See ``StreamCore/Publisher/buffer(size:prefetch:whenFull:)``.
  ///
  /// > Thread safety: `request(_:)` and `cancel()` on its subscription are safe from any thread.
  public struct Buffer<Upstream: Publisher>: Publisher {
    public typealias Output = Upstream.Output
    public typealias Failure = Upstream.Failure

    /// The publisher whose values are buffered.
    public let upstream: Upstream

    /// The most values held.
    public let size: Int

    /// When values are requested from the upstream.
    public let prefetch: PrefetchStrategy

    /// What happens to a value that arrives while the buffer is full.
    public let whenFull: BufferingStrategy<Failure>

    /// Creates a buffering publisher.
    ///
    /// - Parameters:
    ///   - upstream: The publisher whose values are buffered.
    ///   - size: The most values to hold; must be greater than zero.
    ///   - prefetch: When to request values from the upstream.
    ///   - whenFull: What to do with a value that arrives while the buffer is full.
    public init(
      upstream: Upstream,
      size: Int,
      prefetch: PrefetchStrategy,
      whenFull: BufferingStrategy<Failure>
    ) {
      precondition(size > 0, "Buffer: size must be greater than zero, got \(size)")
      self.upstream = upstream
      self.size = size
      self.prefetch = prefetch
      self.whenFull = whenFull
    }

    public func receive<S: Subscriber>(subscriber: S)
    where S.Input == Output, S.Failure == Failure {
      upstream.subscribe(
        Inner(downstream: subscriber, size: size, prefetch: prefetch, whenFull: whenFull)
      )
    }
  }
}

extension Publishers.BufferingStrategy {
  /// A buffer-full strategy that stops the program with `message`.
  ///
  /// ```swift
  /// upstream.buffer(size: 10, prefetch: .keepFull, whenFull: .fatalError("sensor overflow"))
  /// ```
  ///
  /// It is a ``customError(_:)`` whose closure calls `Swift.fatalError`, as Conbini defines it.
  ///
  /// - Parameters:
  ///   - message: The message to stop with.
  ///   - file: The file to report; the caller's by default.
  ///   - line: The line to report; the caller's by default.
  /// - Returns: A strategy that traps when the buffer overflows.
  public static func fatalError(
    _ message: @autoclosure @escaping () -> String = String(),
    file: StaticString = #file,
    line: UInt = #line
  ) -> Self {
    .customError { Swift.fatalError(message(), file: file, line: line) }
  }
}

extension Publishers.Buffer {
  // Sendable: state is guarded by `lock`; calls out happen outside it, by the draining thread.
  private final class Inner<Downstream: Subscriber>: Subscriber, Subscription, @unchecked Sendable
  where Downstream.Input == Output, Downstream.Failure == Failure {
    typealias Input = Output

    /// ```
    /// awaitingSubscription --receive(subscription:)--> active
    /// active --upstream completion / overflow error--> ending (drains, then sends it)
    /// active / ending --completion delivered / cancel()--> terminal
    /// ```
    private enum Phase {
      case awaitingSubscription
      case active(any Subscription)
      case ending
      case terminal
    }

    private enum ValueAction {
      case none
      case drain
      case fail(any Subscription)
    }

    private enum DrainStep {
      case value(Output, Downstream, refill: (any Subscription)?)
      case completion(Subscribers.Completion<Failure>, Downstream?)
      case stop
    }

    private let lock = Lock()
    private var phase = Phase.awaitingSubscription
    /// A value is moved out of its slot (leaving `nil`) when it is delivered or dropped, so
    /// compacting never releases a value under the lock.
    private var buffer: [Output?] = []
    private var head = 0
    private var demand = Subscribers.Demand.none
    private var pendingCompletion: Subscribers.Completion<Failure>?
    private var draining = false

    /// `nil` once terminal: a subscriber that keeps its subscription must not keep itself.
    private var downstream: Downstream?
    private let size: Int
    private let prefetch: Publishers.PrefetchStrategy
    private let whenFull: Publishers.BufferingStrategy<Failure>

    init(
      downstream: Downstream,
      size: Int,
      prefetch: Publishers.PrefetchStrategy,
      whenFull: Publishers.BufferingStrategy<Failure>
    ) {
      self.downstream = downstream
      self.size = size
      self.prefetch = prefetch
      self.whenFull = whenFull
    }

    private var count: Int { buffer.count - head }

    /// Drops the consumed front of `buffer` once it is empty or at least half consumed. Call it
    /// under `lock`.
    private func compact() {
      if head == buffer.count {
        buffer.removeAll(keepingCapacity: true)
        head = 0
      } else if head >= 64, head * 2 >= buffer.count {
        buffer.removeFirst(head)
        head = 0
      }
    }

    func receive(subscription: any Subscription) {
      let downstream = lock.withLock { () -> Downstream? in
        guard case .awaitingSubscription = phase else { return nil }
        phase = .active(subscription)
        return self.downstream
      }
      guard let downstream else {
        subscription.cancel()
        return
      }
      downstream.receive(subscription: self)
      guard prefetch == .keepFull else { return }
      let stillActive = lock.withLock { () -> Bool in
        if case .active = phase { return true }
        return false
      }
      if stillActive { subscription.request(.max(size)) }
    }

    func receive(_ input: Output) -> Subscribers.Demand {
      var dropped: Output?  // released after the lock
      let action = lock.withLock { () -> ValueAction in
        guard case .active(let subscription) = phase else { return .none }
        if count >= size {
          switch whenFull {
          case .dropNewest:
            return .none
          case .dropOldest:
            dropped = buffer[head].take()
            head += 1
            compact()
          case .customError:
            phase = .ending
            return .fail(subscription)
          }
        }
        buffer.append(input)
        guard !draining, demand > .none else { return .none }
        draining = true
        return .drain
      }
      _ = dropped
      switch action {
      case .none:
        break
      case .drain:
        drain()
      case .fail(let subscription):
        subscription.cancel()
        guard case .customError(let makeError) = whenFull else { break }
        let error = makeError()
        var discarded: [Output?] = []  // released after the lock
        let start = lock.withLock { () -> Bool in
          guard case .ending = phase else { return false }
          swap(&discarded, &buffer)
          head = 0
          pendingCompletion = .failure(error)
          guard !draining else { return false }
          draining = true
          return true
        }
        _ = discarded
        if start { drain() }
      }
      return .none
    }

    func receive(completion: Subscribers.Completion<Failure>) {
      // The subscription is released after the lock.
      let (start, released) = lock.withLock { () -> (Bool, (any Subscription)?) in
        guard case .active(let subscription) = phase else { return (false, nil) }
        phase = .ending
        pendingCompletion = completion
        guard !draining else { return (false, subscription) }
        draining = true
        return (true, subscription)
      }
      _ = released
      if start { drain() }
    }

    func request(_ demand: Subscribers.Demand) {
      precondition(demand > .none, "Buffer: request(.none) is not allowed")
      let (forward, start) = lock.withLock { () -> ((any Subscription)?, Bool) in
        self.demand += demand
        var forward: (any Subscription)?
        if prefetch == .byRequest, case .active(let subscription) = phase {
          forward = subscription
        }
        guard !draining, count > 0 || pendingCompletion != nil else { return (forward, false) }
        draining = true
        return (forward, true)
      }
      forward?.request(demand)
      if start { drain() }
    }

    func cancel() {
      // The buffered values, a pending failure and the downstream are released after the lock.
      let (upstream, _, _, _) = lock.withLock {
        () -> ((any Subscription)?, [Output?], Subscribers.Completion<Failure>?, Downstream?) in
        defer {
          phase = .terminal
          buffer = []
          head = 0
          downstream = nil
        }
        let pending = pendingCompletion.take()
        guard case .active(let subscription) = phase else {
          return (nil, buffer, pending, downstream)
        }
        return (subscription, buffer, pending, downstream)
      }
      upstream?.cancel()
    }

    /// Delivers buffered values while there is demand, then the pending completion. Only the
    /// thread that set `draining` runs it; others add to the state and let this loop deliver.
    private func drain() {
      while true {
        let step = lock.withLock { () -> DrainStep in
          if case .terminal = phase {
            draining = false
            return .stop
          }
          if count > 0, demand > .none, let downstream {
            guard let value = buffer[head].take() else {
              preconditionFailure("Buffer: an unconsumed slot is empty")
            }
            head += 1
            compact()
            demand -= 1
            var refill: (any Subscription)?
            if prefetch == .keepFull, case .active(let subscription) = phase {
              refill = subscription
            }
            return .value(value, downstream, refill: refill)
          }
          if count == 0, let completion = pendingCompletion {
            pendingCompletion = nil
            phase = .terminal
            draining = false
            return .completion(completion, downstream.take())
          }
          draining = false
          return .stop
        }
        switch step {
        case .value(let value, let downstream, let refill):
          refill?.request(.max(1))
          let more = downstream.receive(value)
          guard more > .none else { continue }
          let forward = lock.withLock { () -> (any Subscription)? in
            demand += more
            if prefetch == .byRequest, case .active(let subscription) = phase {
              return subscription
            }
            return nil
          }
          forward?.request(more)
        case .completion(let completion, let downstream):
          downstream?.receive(completion: completion)
          return
        case .stop:
          return
        }
      }
    }
  }
}
