public import StreamCore

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

extension Publisher {
  /// Stops in the debugger (raises `SIGTRAP`) when a closure returns `true` for an event.
  ///
  /// ```swift
  /// let cancellable = values
  ///   .breakpoint(receiveOutput: { $0 < 0 })
  ///   .sink { use($0) }
  /// ```
  ///
  /// Each closure runs before the event goes on. Without a debugger attached, the signal ends
  /// the process.
  ///
  /// > Thread safety: Each closure runs on the thread of the event it examines, with no lock
  /// > held.
  ///
  /// - Parameters:
  ///   - receiveSubscription: Examines the upstream subscription.
  ///   - receiveOutput: Examines each value.
  ///   - receiveCompletion: Examines the completion.
  /// - Returns: A publisher that raises `SIGTRAP` when a closure returns `true`.
  public func breakpoint(
    receiveSubscription: ((any Subscription) -> Bool)? = nil,
    receiveOutput: ((Output) -> Bool)? = nil,
    receiveCompletion: ((Subscribers.Completion<Failure>) -> Bool)? = nil
  ) -> Publishers.Breakpoint<Self> {
    Publishers.Breakpoint(
      upstream: self,
      receiveSubscription: receiveSubscription,
      receiveOutput: receiveOutput,
      receiveCompletion: receiveCompletion
    )
  }

  /// Stops in the debugger (raises `SIGTRAP`) when the upstream fails.
  ///
  /// ```swift
  /// let cancellable = request.breakpointOnError().sink(receiveCompletion: { _ in }) { show($0) }
  /// ```
  ///
  /// > Thread safety: The check runs on the thread that delivers the completion.
  ///
  /// - Returns: A publisher that raises `SIGTRAP` when it receives a failure.
  public func breakpointOnError() -> Publishers.Breakpoint<Self> {
    breakpoint(receiveCompletion: { completion in
      if case .failure = completion { return true }
      return false
    })
  }
}

extension Publishers {
  /// A publisher that raises `SIGTRAP` when a closure returns `true` for an event.
  ///
  /// ```swift
  /// let checked = Publishers.Breakpoint(
  ///   upstream: values, receiveSubscription: nil, receiveOutput: { $0 < 0 }, receiveCompletion: nil)
  /// ```
  ///
  /// See ``StreamCore/Publisher/breakpoint(receiveSubscription:receiveOutput:receiveCompletion:)``.
  /// As in Combine, the subscriber receives the upstream's own subscription; the subscriber
  /// this publisher gives the upstream is described as `"Breakpoint"` and mirrors no children.
  ///
  /// > Thread safety: `request(_:)` and `cancel()` go straight to the upstream's subscription,
  /// > as safe from any thread as it is.
  public struct Breakpoint<Upstream: Publisher>: Publisher {
    public typealias Output = Upstream.Output
    public typealias Failure = Upstream.Failure

    /// The publisher whose events are examined.
    public let upstream: Upstream

    /// Examines the upstream subscription.
    public let receiveSubscription: ((any Subscription) -> Bool)?

    /// Examines each value.
    public let receiveOutput: ((Upstream.Output) -> Bool)?

    /// Examines the completion.
    public let receiveCompletion: ((Subscribers.Completion<Upstream.Failure>) -> Bool)?

    /// Creates a publisher that raises `SIGTRAP` when a closure returns `true`.
    ///
    /// - Parameters:
    ///   - upstream: The publisher whose events are examined.
    ///   - receiveSubscription: Examines the upstream subscription.
    ///   - receiveOutput: Examines each value.
    ///   - receiveCompletion: Examines the completion.
    public init(
      upstream: Upstream,
      receiveSubscription: ((any Subscription) -> Bool)? = nil,
      receiveOutput: ((Upstream.Output) -> Bool)? = nil,
      receiveCompletion: ((Subscribers.Completion<Upstream.Failure>) -> Bool)? = nil
    ) {
      self.upstream = upstream
      self.receiveSubscription = receiveSubscription
      self.receiveOutput = receiveOutput
      self.receiveCompletion = receiveCompletion
    }

    public func receive<S: Subscriber>(subscriber: S)
    where S.Input == Output, S.Failure == Failure {
      let checks = Checks(
        subscription: receiveSubscription,
        output: receiveOutput,
        completion: receiveCompletion
      )
      upstream.subscribe(Inner(link: PassThroughLink(downstream: subscriber, extra: checks)))
    }
  }
}

extension Publishers.Breakpoint {
  private struct Checks {
    let subscription: ((any Subscription) -> Bool)?
    let output: ((Output) -> Bool)?
    let completion: ((Subscribers.Completion<Failure>) -> Bool)?
  }

  /// Raises `SIGTRAP`, which stops in an attached debugger and ends the process otherwise.
  private static func trap() {
    #if os(Windows)
    fatalError("Breakpoint: a breakpoint closure returned true")
    #else
    raise(SIGTRAP)
    #endif
  }

  /// The subscriber that runs the checks. As Combine's, it hands the downstream the upstream's
  /// own subscription (requests and cancels go straight to the upstream), describes itself as
  /// `Breakpoint` and mirrors no children.
  // Sendable: all mutable state is in `link`, which guards it with a lock; closures, upstream and
  // downstream are called outside it.
  private final class Inner<Downstream: Subscriber>: @unchecked Sendable, Subscriber,
    ChildlessReflection
  where Downstream.Input == Output, Downstream.Failure == Failure {
    typealias Input = Output

    private let link: PassThroughLink<Downstream, Checks>

    init(link: PassThroughLink<Downstream, Checks>) {
      self.link = link
    }

    var description: String { "Breakpoint" }

    func receive(subscription: any Subscription) {
      guard let delivery = link.attach(subscription) else {
        subscription.cancel()
        return
      }
      if delivery.extra.subscription?(subscription) == true {
        Publishers.Breakpoint<Upstream>.trap()
      }
      delivery.downstream.receive(subscription: subscription)
    }

    func receive(_ input: Output) -> Subscribers.Demand {
      guard let delivery = link.delivery() else { return .none }
      if delivery.extra.output?(input) == true { Publishers.Breakpoint<Upstream>.trap() }
      return delivery.downstream.receive(input)
    }

    func receive(completion: Subscribers.Completion<Failure>) {
      guard let ended = link.finish() else { return }
      if ended.extra.completion?(completion) == true { Publishers.Breakpoint<Upstream>.trap() }
      ended.downstream.receive(completion: completion)
    }
  }
}
