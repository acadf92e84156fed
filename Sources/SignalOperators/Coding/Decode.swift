public import StreamCore

extension Publisher {
  /// Decodes each value from the upstream as `type` with `decoder`.
  ///
  /// ```swift
  /// let users = responses
  ///   .decode(type: User.self, decoder: JSONDecoder())  // a Publisher of User
  /// ```
  ///
  /// When the decoder throws, the upstream is cancelled and the stream fails with the error.
  ///
  /// > Thread safety: Values are decoded and delivered on the thread that sent them.
  ///
  /// - Parameters:
  ///   - type: The type to decode each value as.
  ///   - decoder: The decoder to use, such as Foundation's `JSONDecoder`.
  /// - Returns: A publisher of the decoded values, whose failure is any error.
  public func decode<Item: Decodable, Coder: TopLevelDecoder>(
    type: Item.Type,
    decoder: Coder
  ) -> Publishers.Decode<Self, Item, Coder> where Output == Coder.Input {
    Publishers.Decode(upstream: self, decoder: decoder)
  }
}

extension Publishers {
  /// A publisher that decodes each value from its upstream.
  ///
  /// ```swift
  /// let decoded = Publishers.Decode<_, User, _>(upstream: responses, decoder: JSONDecoder())
  /// ```
  ///
  /// See ``StreamCore/Publisher/decode(type:decoder:)``. Subscriptions are described as
  /// `"Decode"`.
  ///
  /// > Thread safety: `request(_:)` and `cancel()` on its subscription are safe from any thread.
  public struct Decode<Upstream: Publisher, Output: Decodable, Coder: TopLevelDecoder>: Publisher
  where Upstream.Output == Coder.Input {
    public typealias Failure = any Error

    /// The publisher whose values are decoded.
    public let upstream: Upstream

    private let decoder: Coder

    /// Creates a publisher that decodes each value from `upstream`.
    ///
    /// - Parameters:
    ///   - upstream: The publisher whose values are decoded.
    ///   - decoder: The decoder to use.
    public init(upstream: Upstream, decoder: Coder) {
      self.upstream = upstream
      self.decoder = decoder
    }

    public func receive<S: Subscriber>(subscriber: S)
    where S.Input == Output, S.Failure == Failure {
      upstream.subscribe(Inner(link: PassThroughLink(downstream: subscriber, extra: decoder)))
    }
  }
}

extension Publishers.Decode: Sendable where Upstream: Sendable, Coder: Sendable {}

extension Publishers.Decode {
  // Sendable: all mutable state is in `link`, which guards it with a lock; the decoder, upstream
  // and downstream are called outside it, the decoder only from upstream's serial delivery.
  private final class Inner<Downstream: Subscriber>: @unchecked Sendable, Subscriber, Subscription,
    CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible
  where Downstream.Input == Output, Downstream.Failure == any Error {
    typealias Input = Upstream.Output
    typealias Failure = Upstream.Failure

    private let link: PassThroughLink<Downstream, Coder>

    init(link: PassThroughLink<Downstream, Coder>) {
      self.link = link
    }

    var description: String { "Decode" }

    /// As Combine's: `downstream`, `finished` and `upstreamSubscription`.
    var customMirror: Mirror { link.mirror(of: self) }

    var playgroundDescription: Any { description }

    func receive(subscription: any Subscription) {
      guard let delivery = link.attach(subscription) else {
        subscription.cancel()
        return
      }
      delivery.downstream.receive(subscription: self)
    }

    func receive(_ input: Upstream.Output) -> Subscribers.Demand {
      guard let delivery = link.delivery() else { return .none }
      let decoded: Output
      do {
        decoded = try delivery.extra.decode(Output.self, from: input)
      } catch {
        guard let ended = link.finish() else { return .none }
        ended.upstream?.cancel()
        ended.downstream.receive(completion: .failure(error))
        return .none
      }
      return delivery.downstream.receive(decoded)
    }

    func receive(completion: Subscribers.Completion<Upstream.Failure>) {
      guard let ended = link.finish() else { return }
      switch completion {
      case .finished:
        ended.downstream.receive(completion: .finished)
      case .failure(let error):
        ended.downstream.receive(completion: .failure(error))
      }
    }

    func request(_ demand: Subscribers.Demand) {
      link.upstream()?.subscription.request(demand)
    }

    func cancel() {
      link.cancel()?.upstream?.cancel()
    }
  }
}
