public import StreamCore

extension Publisher {
  /// Calls the given closures when publishing events occur, and passes the events on unchanged.
  ///
  /// ```swift
  /// let cancellable = values
  ///   .handleEvents(receiveOutput: { print("got", $0) }, receiveCancel: { print("cancelled") })
  ///   .sink { use($0) }
  /// ```
  ///
  /// Each closure runs before the event goes on: `receiveSubscription` before the downstream
  /// gets the subscription, `receiveOutput` before it gets a value, `receiveCompletion` before
  /// it gets the completion, `receiveCancel` before the upstream is cancelled, and
  /// `receiveRequest` before a request goes upstream — also for the demand the downstream
  /// returns from `receive(_:)`. Once the subscription ends the closures are released.
  ///
  /// > Thread safety: Each closure runs on the thread of the event it observes, with no lock
  /// > held; `receiveRequest` and `receiveCancel` may run on any thread that calls
  /// > `request(_:)` or `cancel()`.
  ///
  /// - Parameters:
  ///   - receiveSubscription: Called with the upstream subscription.
  ///   - receiveOutput: Called with each value.
  ///   - receiveCompletion: Called with the completion.
  ///   - receiveCancel: Called when the downstream cancels.
  ///   - receiveRequest: Called with each demand the downstream asks for.
  /// - Returns: A publisher that runs the closures and republishes the upstream's events.
  public func handleEvents(
    receiveSubscription: ((any Subscription) -> Void)? = nil,
    receiveOutput: ((Output) -> Void)? = nil,
    receiveCompletion: ((Subscribers.Completion<Failure>) -> Void)? = nil,
    receiveCancel: (() -> Void)? = nil,
    receiveRequest: ((Subscribers.Demand) -> Void)? = nil
  ) -> Publishers.HandleEvents<Self> {
    Publishers.HandleEvents(
      upstream: self,
      receiveSubscription: receiveSubscription,
      receiveOutput: receiveOutput,
      receiveCompletion: receiveCompletion,
      receiveCancel: receiveCancel,
      receiveRequest: receiveRequest
    )
  }
}

extension Publishers {
  /// A publisher that calls closures when publishing events occur.
  ///
  /// ```swift
  /// let logged = Publishers.HandleEvents(
  ///   upstream: values, receiveSubscription: nil, receiveOutput: { print($0) },
  ///   receiveCompletion: nil, receiveCancel: nil, receiveRequest: nil)
  /// ```
  ///
  /// See ``StreamCore/Publisher/handleEvents(receiveSubscription:receiveOutput:receiveCompletion:receiveCancel:receiveRequest:)``.
  ///
  /// > Thread safety: `request(_:)` and `cancel()` on its subscription are safe from any thread.
  public struct HandleEvents<Upstream: Publisher>: Publisher {
    public typealias Output = Upstream.Output
    public typealias Failure = Upstream.Failure

    /// The publisher whose events are observed.
    public let upstream: Upstream

    /// Called with the upstream subscription.
    public var receiveSubscription: ((any Subscription) -> Void)?

    /// Called with each value.
    public var receiveOutput: ((Upstream.Output) -> Void)?

    /// Called with the completion.
    public var receiveCompletion: ((Subscribers.Completion<Upstream.Failure>) -> Void)?

    /// Called when the downstream cancels.
    public var receiveCancel: (() -> Void)?

    /// Called with each demand the downstream asks for.
    public var receiveRequest: ((Subscribers.Demand) -> Void)?

    /// Creates a publisher that calls the given closures when events occur.
    ///
    /// - Parameters:
    ///   - upstream: The publisher whose events are observed.
    ///   - receiveSubscription: Called with the upstream subscription.
    ///   - receiveOutput: Called with each value.
    ///   - receiveCompletion: Called with the completion.
    ///   - receiveCancel: Called when the downstream cancels.
    ///   - receiveRequest: Called with each demand the downstream asks for.
    public init(
      upstream: Upstream,
      receiveSubscription: ((any Subscription) -> Void)? = nil,
      receiveOutput: ((Output) -> Void)? = nil,
      receiveCompletion: ((Subscribers.Completion<Failure>) -> Void)? = nil,
      receiveCancel: (() -> Void)? = nil,
      receiveRequest: ((Subscribers.Demand) -> Void)? = nil
    ) {
      self.upstream = upstream
      self.receiveSubscription = receiveSubscription
      self.receiveOutput = receiveOutput
      self.receiveCompletion = receiveCompletion
      self.receiveCancel = receiveCancel
      self.receiveRequest = receiveRequest
    }

    public func receive<S: Subscriber>(subscriber: S)
    where S.Input == Output, S.Failure == Failure {
      let closures = Closures(
        subscription: receiveSubscription,
        output: receiveOutput,
        completion: receiveCompletion,
        cancel: receiveCancel,
        request: receiveRequest
      )
      upstream.subscribe(Inner(link: PassThroughLink(downstream: subscriber, extra: closures)))
    }
  }
}

extension Publishers.HandleEvents {
  private struct Closures {
    let subscription: ((any Subscription) -> Void)?
    let output: ((Output) -> Void)?
    let completion: ((Subscribers.Completion<Failure>) -> Void)?
    let cancel: (() -> Void)?
    let request: ((Subscribers.Demand) -> Void)?
  }

  // Sendable: all mutable state is in `link`, which guards it with a lock; closures, upstream and
  // downstream are called outside it.
  private final class Inner<Downstream: Subscriber>: @unchecked Sendable, Subscriber, Subscription,
    CustomStringConvertible, ChildlessReflection
  where Downstream.Input == Output, Downstream.Failure == Failure {
    typealias Input = Output

    private let link: PassThroughLink<Downstream, Closures>

    init(link: PassThroughLink<Downstream, Closures>) {
      self.link = link
    }

    var description: String { "HandleEvents" }

    func receive(subscription: any Subscription) {
      guard let delivery = link.attach(subscription) else {
        subscription.cancel()
        return
      }
      delivery.extra.subscription?(subscription)
      delivery.downstream.receive(subscription: self)
    }

    func receive(_ input: Output) -> Subscribers.Demand {
      guard let delivery = link.delivery() else { return .none }
      delivery.extra.output?(input)
      let more = delivery.downstream.receive(input)
      if more > .none, let request = delivery.extra.request, !link.isTerminal {
        request(more)
      }
      return more
    }

    func receive(completion: Subscribers.Completion<Failure>) {
      guard let ended = link.finish() else { return }
      ended.extra.completion?(completion)
      ended.downstream.receive(completion: completion)
    }

    func request(_ demand: Subscribers.Demand) {
      guard let upstream = link.upstream() else { return }
      upstream.extra.request?(demand)
      upstream.subscription.request(demand)
    }

    func cancel() {
      guard let ended = link.cancel() else { return }
      ended.extra.cancel?()
      ended.upstream?.cancel()
    }
  }
}
