/// A publisher that performs type erasure by wrapping another publisher.
///
/// ```swift
/// func numbers() -> AnyPublisher<Int, Never> {
///   [1, 2, 3].publisher.eraseToAnyPublisher()
/// }
/// ```
///
/// Use it to hide a chain's concrete type at an API boundary. Wrapping an `AnyPublisher` again
/// reuses its box. Its description is `"AnyPublisher"`.
///
/// > Thread safety: As safe as the wrapped publisher.
public struct AnyPublisher<Output, Failure: Error>: Publisher, CustomStringConvertible,
  CustomPlaygroundDisplayConvertible
{
  @usableFromInline
  let box: PublisherBoxBase<Output, Failure>

  /// Creates a type-erasing publisher to wrap the provided publisher.
  ///
  /// - Parameter publisher: A publisher to wrap with a type-eraser.
  @inlinable
  public init<P: Publisher>(_ publisher: P) where Output == P.Output, Failure == P.Failure {
    if let erased = publisher as? AnyPublisher<Output, Failure> {
      box = erased.box
    } else {
      box = PublisherBox(publisher)
    }
  }

  /// Forwards the subscriber to the wrapped publisher.
  @inlinable
  public func receive<S: Subscriber>(subscriber: S) where Output == S.Input, Failure == S.Failure {
    // Folded away once specialised. An operator's inner subscriber (`flatMap`'s children) goes
    // through the entry the box made where the wrapped publisher's type was known, so the
    // wrapped publisher's subscribe path runs specialised rather than behind the box's generic
    // method.
    if S.self == InnerSubscriber<Output, Failure>.self {
      box.receiveInner(box, unsafeBitCast(subscriber, to: InnerSubscriber<Output, Failure>.self))
    } else {
      box.receive(subscriber: subscriber)
    }
  }

  /// `"AnyPublisher"`.
  public var description: String { "AnyPublisher" }

  /// The description.
  public var playgroundDescription: Any { description }
}

@usableFromInline
class PublisherBoxBase<Output, Failure: Error> {
  /// Subscribes an operator's ``InnerSubscriber`` to the wrapped publisher: a closure made in
  /// the subclass's initialiser, where the wrapped publisher's type is known, so it runs
  /// specialised code (a generic method reached through the class runs unspecialised).
  @usableFromInline
  let receiveInner: (PublisherBoxBase, InnerSubscriber<Output, Failure>) -> Void

  @inlinable
  init(receiveInner: @escaping (PublisherBoxBase, InnerSubscriber<Output, Failure>) -> Void) {
    self.receiveInner = receiveInner
  }

  @inlinable
  func receive<S: Subscriber>(subscriber: S) where Output == S.Input, Failure == S.Failure {
    preconditionFailure("PublisherBoxBase.receive(subscriber:) must be overridden")
  }
}

@usableFromInline
final class PublisherBox<Base: Publisher>: PublisherBoxBase<Base.Output, Base.Failure> {
  @usableFromInline
  let base: Base

  @inlinable
  init(_ base: Base) {
    self.base = base
    super.init { box, subscriber in
      unsafeDowncast(box, to: PublisherBox.self).base.receive(subscriber: subscriber)
    }
  }

  @inlinable
  override func receive<S: Subscriber>(subscriber: S)
  where Base.Output == S.Input, Base.Failure == S.Failure {
    base.receive(subscriber: subscriber)
  }
}

extension Publisher {
  /// Wraps this publisher with a type eraser.
  ///
  /// ```swift
  /// let erased: AnyPublisher<Int, Never> = Just(1).eraseToAnyPublisher()
  /// ```
  ///
  /// - Returns: An ``AnyPublisher`` wrapping this publisher.
  @inlinable
  public func eraseToAnyPublisher() -> AnyPublisher<Output, Failure> {
    AnyPublisher(self)
  }
}
