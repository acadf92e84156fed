public import StreamCore

extension Publisher where Output: Encodable {
  /// Encodes each value with `encoder`.
  ///
  /// ```swift
  /// let json = users.encode(encoder: JSONEncoder())  // a Publisher of Data
  /// ```
  ///
  /// When the encoder throws, the upstream is cancelled and the stream fails with the error.
  ///
  /// > Thread safety: Values are encoded and delivered on the thread that sent them.
  ///
  /// - Parameter encoder: The encoder to use, such as Foundation's `JSONEncoder`.
  /// - Returns: A publisher of the encoded values, whose failure is any error.
  public func encode<Coder: TopLevelEncoder>(encoder: Coder) -> Publishers.Encode<Self, Coder> {
    Publishers.Encode(upstream: self, encoder: encoder)
  }
}

extension Publishers {
  /// A publisher that encodes each value from its upstream.
  ///
  /// ```swift
  /// let encoded = Publishers.Encode(upstream: users, encoder: JSONEncoder())
  /// ```
  ///
  /// See ``StreamCore/Publisher/encode(encoder:)``. Subscriptions are described as `"Encode"`.
  ///
  /// > Thread safety: `request(_:)` and `cancel()` on its subscription are safe from any thread.
  public struct Encode<Upstream: Publisher, Coder: TopLevelEncoder>: Publisher
  where Upstream.Output: Encodable {
    public typealias Output = Coder.Output
    public typealias Failure = any Error

    /// The publisher whose values are encoded.
    public let upstream: Upstream

    private let encoder: Coder

    /// Creates a publisher that encodes each value from `upstream`.
    ///
    /// - Parameters:
    ///   - upstream: The publisher whose values are encoded.
    ///   - encoder: The encoder to use.
    public init(upstream: Upstream, encoder: Coder) {
      self.upstream = upstream
      self.encoder = encoder
    }

    public func receive<S: Subscriber>(subscriber: S)
    where S.Input == Output, S.Failure == Failure {
      upstream.subscribe(Inner(link: PassThroughLink(downstream: subscriber, extra: encoder)))
    }
  }
}

extension Publishers.Encode: Sendable where Upstream: Sendable, Coder: Sendable {}

extension Publishers.Encode {
  // Sendable: all mutable state is in `link`, which guards it with a lock; the encoder, upstream
  // and downstream are called outside it, the encoder only from upstream's serial delivery.
  private final class Inner<Downstream: Subscriber>: @unchecked Sendable, Subscriber, Subscription,
    CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible
  where Downstream.Input == Coder.Output, Downstream.Failure == any Error {
    typealias Input = Upstream.Output
    typealias Failure = Upstream.Failure

    private let link: PassThroughLink<Downstream, Coder>

    init(link: PassThroughLink<Downstream, Coder>) {
      self.link = link
    }

    var description: String { "Encode" }

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
      let encoded: Coder.Output
      do {
        encoded = try delivery.extra.encode(input)
      } catch {
        guard let ended = link.finish() else { return .none }
        ended.upstream?.cancel()
        ended.downstream.receive(completion: .failure(error))
        return .none
      }
      return delivery.downstream.receive(encoded)
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
