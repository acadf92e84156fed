import SignalOperators
import StreamCore

/// A signal of values that never fails on its own: sends go to every subscriber.
public final class Signal<Input, Failure: Error> {
  private let subject = PassthroughSubject<Input, Failure>()

  public init() {}

  public func fire(_ value: Input) {
    subject.send(value)
  }

  public var publisher: AnyPublisher<Input, Failure> {
    subject.eraseToAnyPublisher()
  }
}

/// A relay with a current value, which never completes.
public final class CurrentValueRelay<Output> {
  private let subject: CurrentValueSubject<Output, Never>

  public init(_ value: Output) {
    subject = CurrentValueSubject(value)
  }

  public var value: Output { subject.value }

  public func accept(_ value: Output) {
    subject.send(value)
  }

  public func publisher() -> AnyPublisher<Output, Never> {
    subject.eraseToAnyPublisher()
  }
}

/// The side of a future that completes it.
public final class Promise<Output, Failure: Error> {
  private let subject = CurrentValueSubject<Result<Output, Failure>?, Never>(nil)

  public init() {}

  public func resolve(_ value: Output) {
    subject.send(.success(value))
  }

  public func reject(_ error: Failure) {
    subject.send(.failure(error))
  }

  /// The result, once there is one.
  public var result: AnyPublisher<Result<Output, Failure>, Never> {
    subject.compactMap { $0 }.first().eraseToAnyPublisher()
  }
}
