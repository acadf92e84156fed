import SignalOperators
import StreamCore

extension Publishers {
  /// A publisher whose values a closure sends into a subject, once per subscriber.
  public struct Create<Output, Failure: Error>: Publisher {
    public let factory: (PassthroughSubject<Output, Failure>) -> Void

    public init(_ factory: @escaping (PassthroughSubject<Output, Failure>) -> Void) {
      self.factory = factory
    }

    public func receive<S: Subscriber>(subscriber: S)
    where S.Input == Output, S.Failure == Failure {
      let subject = PassthroughSubject<Output, Failure>()
      subject.receive(subscriber: subscriber)
      factory(subject)
    }
  }
}
