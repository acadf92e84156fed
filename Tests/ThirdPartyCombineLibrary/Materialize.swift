import SignalOperators
import StreamCore

extension Publishers {
  /// Sends each event of its upstream as a value, then finishes.
  public struct Materialize<Upstream: Publisher>: Publisher {
    public typealias Output = Event<Upstream.Output, Upstream.Failure>
    public typealias Failure = Never

    public let upstream: Upstream

    public init(upstream: Upstream) {
      self.upstream = upstream
    }

    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Never {
      upstream
        .map { Output.value($0) }
        .append(Output.finished)
        .catch { Just(Output.failure($0)) }
        .receive(subscriber: subscriber)
    }
  }

  /// Turns the events `Materialize` sends back into values and a completion.
  public struct Dematerialize<Upstream: Publisher, Output, Failure: Error>: Publisher
  where Upstream.Output == Event<Output, Failure>, Upstream.Failure == Never {
    public let upstream: Upstream

    public init(upstream: Upstream) {
      self.upstream = upstream
    }

    public func receive<S: Subscriber>(subscriber: S)
    where S.Input == Output, S.Failure == Failure {
      upstream
        .setFailureType(to: Failure.self)
        .prefix { event in
          if case .finished = event { return false }
          return true
        }
        .flatMap(maxPublishers: .max(1)) { event -> AnyPublisher<Output, Failure> in
          switch event {
          case .value(let value): Just(value).setFailureType(to: Failure.self).eraseToAnyPublisher()
          case .failure(let error): Fail(error: error).eraseToAnyPublisher()
          case .finished: Empty().eraseToAnyPublisher()
          }
        }
        .receive(subscriber: subscriber)
    }
  }
}

extension Publisher {
  /// Every event of this publisher, as a value.
  public func materialize() -> Publishers.Materialize<Self> {
    Publishers.Materialize(upstream: self)
  }

  /// The values and completion that this publisher's events describe.
  public func dematerialize<Value, Failure: Error>()
    -> Publishers.Dematerialize<Self, Value, Failure>
  where Output == Event<Value, Failure>, Self.Failure == Never {
    Publishers.Dematerialize(upstream: self)
  }
}
