public import StreamCore

extension Publisher {
  /// Prints log messages for all publishing events.
  ///
  /// ```swift
  /// let cancellable = [1, 2].publisher.print("numbers").sink { _ in }
  /// // numbers: receive subscription: ([1, 2])
  /// // numbers: request unlimited
  /// // numbers: receive value: (1)
  /// // numbers: receive value: (2)
  /// // numbers: receive finished
  /// ```
  ///
  /// It writes one line per event, as Combine does: `receive subscription: (…)`,
  /// `request unlimited` or `request max: (n)`, `receive value: (…)`, `receive finished`,
  /// `receive error: (…)` and `receive cancel`; demand above none that the downstream returns
  /// from `receive(_:)` is written with ` (synchronous)` after it. Lines start with `prefix: `
  /// when a prefix is given. Events that arrive after the subscription ended are neither
  /// written nor passed on.
  ///
  /// > Thread safety: Lines are written on the thread of the event, one at a time. Each
  /// > subscription writes to its own copy of `stream`.
  ///
  /// - Parameters:
  ///   - prefix: A string to start each line with; none by default.
  ///   - stream: Where to write the lines; standard output when `nil`.
  /// - Returns: A publisher that prints its events and republishes them.
  public func print(
    _ prefix: String = "",
    to stream: (any TextOutputStream)? = nil
  ) -> Publishers.Print<Self> {
    Publishers.Print(upstream: self, prefix: prefix, to: stream)
  }
}

extension Publishers {
  /// A publisher that prints log messages for all publishing events.
  ///
  /// ```swift
  /// let logged = Publishers.Print(upstream: values, prefix: "values")
  /// ```
  ///
  /// See ``StreamCore/Publisher/print(_:to:)``.
  ///
  /// > Thread safety: `request(_:)` and `cancel()` on its subscription are safe from any thread.
  public struct Print<Upstream: Publisher>: Publisher {
    public typealias Output = Upstream.Output
    public typealias Failure = Upstream.Failure

    /// A string that starts each line, followed by `": "`, unless it is empty.
    public let prefix: String

    /// The publisher whose events are printed.
    public let upstream: Upstream

    /// Where lines are written; standard output when `nil`.
    public let stream: (any TextOutputStream)?

    /// Creates a publisher that prints log messages for all publishing events.
    ///
    /// - Parameters:
    ///   - upstream: The publisher whose events are printed.
    ///   - prefix: A string to start each line with.
    ///   - stream: Where to write the lines; standard output when `nil`.
    public init(upstream: Upstream, prefix: String, to stream: (any TextOutputStream)? = nil) {
      self.upstream = upstream
      self.prefix = prefix
      self.stream = stream
    }

    public func receive<S: Subscriber>(subscriber: S)
    where S.Input == Output, S.Failure == Failure {
      let log = Log(prefix: prefix, stream: stream)
      upstream.subscribe(Inner(link: PassThroughLink(downstream: subscriber, extra: ()), log: log))
    }
  }
}

extension Publishers.Print {
  /// Writes lines to the stream, one at a time.
  // Sendable: `stream` is only touched under `lock`, which guards nothing else, so a write never
  // waits on the subscription's state.
  private final class Log: @unchecked Sendable {
    private let lock = Lock()
    private var stream: (any TextOutputStream)?
    private let prefix: String

    init(prefix: String, stream: (any TextOutputStream)?) {
      self.prefix = prefix.isEmpty ? "" : "\(prefix): "
      self.stream = stream
    }

    func write(_ text: String) {
      let line = prefix + text
      lock.withLock {
        if stream != nil {
          // Two writes, as `Swift.print(_:to:)` makes: the text, then the terminator.
          stream?.write(line)
          stream?.write("\n")
        } else {
          Swift.print(line)
        }
      }
    }

    func write(request demand: Subscribers.Demand, synchronous: Bool = false) {
      let suffix = synchronous ? " (synchronous)" : ""
      if let max = demand.max {
        write("request max: (\(max))\(suffix)")
      } else {
        write("request unlimited\(suffix)")
      }
    }
  }

  // Sendable: all mutable state is in `link` and `log`, which guard it with locks; upstream and
  // downstream are called outside them.
  private final class Inner<Downstream: Subscriber>: @unchecked Sendable, Subscriber, Subscription,
    CustomStringConvertible, ChildlessReflection
  where Downstream.Input == Output, Downstream.Failure == Failure {
    typealias Input = Output

    private let link: PassThroughLink<Downstream, Void>
    private let log: Log

    init(link: PassThroughLink<Downstream, Void>, log: Log) {
      self.link = link
      self.log = log
    }

    var description: String { "Print" }

    func receive(subscription: any Subscription) {
      guard let delivery = link.attach(subscription) else {
        subscription.cancel()
        return
      }
      log.write("receive subscription: (\(subscription))")
      delivery.downstream.receive(subscription: self)
    }

    func receive(_ input: Output) -> Subscribers.Demand {
      guard let delivery = link.delivery() else { return .none }
      log.write("receive value: (\(input))")
      let more = delivery.downstream.receive(input)
      if more > .none { log.write(request: more, synchronous: true) }
      return more
    }

    func receive(completion: Subscribers.Completion<Failure>) {
      guard let ended = link.finish() else { return }
      switch completion {
      case .finished:
        log.write("receive finished")
      case .failure(let error):
        log.write("receive error: (\(error))")
      }
      ended.downstream.receive(completion: completion)
    }

    func request(_ demand: Subscribers.Demand) {
      guard let upstream = link.upstream() else { return }
      log.write(request: demand)
      upstream.subscription.request(demand)
    }

    func cancel() {
      guard let ended = link.cancel() else { return }
      log.write("receive cancel")
      ended.upstream?.cancel()
    }
  }
}
