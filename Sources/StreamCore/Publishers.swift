/// A namespace for types that serve as publishers.
///
/// ```swift
/// let numbers: Publishers.Sequence<[Int], Never> = [1, 2, 3].publisher
/// ```
///
/// StreamCore holds the basic publishers; operators add theirs in SignalOperators.
///
/// > Thread safety: A namespace holds no state; each publisher in it states its own rules.
public enum Publishers {}

/// A namespace for types that serve as subscribers.
///
/// ```swift
/// let sink = Subscribers.Sink<Int, Never>(receiveCompletion: { _ in }, receiveValue: { print($0) })
/// ```
///
/// > Thread safety: A namespace holds no state; each subscriber in it states its own rules.
public enum Subscribers {}
