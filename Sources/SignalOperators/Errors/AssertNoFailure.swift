public import StreamCore

extension Publisher {
  /// Stops the program if this publisher fails.
  ///
  /// ```swift
  /// bundledSettings
  ///   .assertNoFailure("bundled settings")
  ///   .sink { apply($0) }
  /// ```
  ///
  /// Values and `.finished` pass through; a failure traps with a message holding `prefix`,
  /// the error, and `file` and `line`. Use it where a failure is a programming error.
  ///
  /// > Thread safety: Adds no threading of its own: values arrive on the upstream's thread and
  /// > the downstream gets the upstream's subscription.
  ///
  /// - Parameters:
  ///   - prefix: Starts the trap message.
  ///   - file: The file to report; the caller's by default.
  ///   - line: The line to report; the caller's by default.
  /// - Returns: A publisher that never fails.
  public func assertNoFailure(
    _ prefix: String = "",
    file: StaticString = #file,
    line: UInt = #line
  ) -> Publishers.AssertNoFailure<Self> {
    Publishers.AssertNoFailure(upstream: self, prefix: prefix, file: file, line: line)
  }
}

extension Publishers {
  /// A publisher that stops the program if its upstream fails.
  ///
  /// ```swift
  /// let settings = Publishers.AssertNoFailure(
  ///   upstream: bundledSettings, prefix: "settings", file: #file, line: #line)
  /// ```
  ///
  /// See ``StreamCore/Publisher/assertNoFailure(_:file:line:)``.
  ///
  /// > Thread safety: Adds no threading of its own.
  public struct AssertNoFailure<Upstream: Publisher>: Publisher {
    public typealias Output = Upstream.Output
    public typealias Failure = Never

    /// The publisher that must not fail.
    public let upstream: Upstream

    /// Starts the trap message.
    public let prefix: String

    /// The file reported in the trap message.
    public let file: StaticString

    /// The line reported in the trap message.
    public let line: UInt

    /// Creates a publisher that traps if `upstream` fails.
    ///
    /// - Parameters:
    ///   - upstream: The publisher that must not fail.
    ///   - prefix: Starts the trap message.
    ///   - file: The file reported in the trap message.
    ///   - line: The line reported in the trap message.
    public init(upstream: Upstream, prefix: String, file: StaticString, line: UInt) {
      self.upstream = upstream
      self.prefix = prefix
      self.file = file
      self.line = line
    }

    public func receive<S: Subscriber>(subscriber: S)
    where S.Input == Output, S.Failure == Never {
      upstream.subscribe(Inner(downstream: subscriber, prefix: prefix, file: file, line: line))
    }
  }
}

extension Publishers.AssertNoFailure: Sendable where Upstream: Sendable {}

extension Publishers.AssertNoFailure {
  /// Passes values and `.finished` on; traps on a failure. The downstream talks to the
  /// upstream's subscription directly.
  private struct Inner<Downstream: Subscriber>: Subscriber, CustomStringConvertible,
    CustomPlaygroundDisplayConvertible, CustomReflectable
  where Downstream.Input == Output, Downstream.Failure == Never {
    typealias Input = Upstream.Output
    typealias Failure = Upstream.Failure

    let downstream: Downstream
    let prefix: String
    let file: StaticString
    let line: UInt
    let combineIdentifier = CombineIdentifier()

    var description: String { "AssertNoFailure" }

    var playgroundDescription: Any { description }

    /// Where the assertion was made and its prefix, as Combine's mirror shows.
    var customMirror: Mirror {
      Mirror(self, children: ["file": file, "line": line, "prefix": prefix])
    }

    func receive(subscription: any Subscription) {
      downstream.receive(subscription: subscription)
    }

    func receive(_ input: Input) -> Subscribers.Demand {
      downstream.receive(input)
    }

    func receive(completion: Subscribers.Completion<Upstream.Failure>) {
      switch completion {
      case .finished:
        downstream.receive(completion: .finished)
      case .failure(let error):
        let lead = prefix.isEmpty ? "" : "\(prefix): "
        fatalError("\(lead)Unexpected failure: \(error)", file: file, line: line)
      }
    }
  }
}
