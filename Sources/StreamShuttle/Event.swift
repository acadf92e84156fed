import PropertyWrappers
public import StreamCore

/// A subject that sends events without a payload and never fails: Shuttle's name for
/// `PassthroughSubject<Void, Never>`.
///
/// ```swift
/// let refresh = AnonymousEvent()
/// let cancellable = refresh.sink { print("refresh") }
/// refresh.send()  // prints "refresh"
/// ```
///
/// > Thread safety: As `PassthroughSubject`: `send` from any thread.
public typealias AnonymousEvent = PassthroughSubject<Void, Never>

/// A subject that sends values of `T` and never fails: Shuttle's name for
/// `PassthroughSubject<T, Never>`.
///
/// ```swift
/// let name = ObservableEvent<String>()
/// let cancellable = name.sink { print("name:", $0) }
/// name.send("Flubber")  // prints "name: Flubber"
/// ```
///
/// It keeps nothing: a subscriber receives only the values sent after it subscribed.
///
/// > Thread safety: As `PassthroughSubject`: `send` from any thread.
public typealias ObservableEvent<T> = PassthroughSubject<T, Never>

/// A subject that holds a current value of `T` and never fails: Shuttle's name for
/// `CurrentValueSubject<T, Never>`.
///
/// ```swift
/// let count = ObservableStream<Int>(0)
/// let cancellable = count.sink { print("count:", $0) }  // prints "count: 0"
/// count.value = 3                                      // prints "count: 3"
/// ```
///
/// Every new subscriber receives the current value at once, then each later value.
///
/// > Thread safety: As `CurrentValueSubject`: `send` and `value` from any thread.
public typealias ObservableStream<T> = CurrentValueSubject<T, Never>

/// A property whose value is a new ``ObservableEvent``: a `PassthroughSubject<T, Never>`.
///
/// ```swift
/// final class Combobulator {
///   @Event var refreshEvent              // PassthroughSubject<Void, Never>
///   @Event<String> var flubberBatchName  // PassthroughSubject<String, Never>
///
///   func finish(batch: String) {
///     flubberBatchName.send(batch)
///     refreshEvent.send()
///   }
/// }
///
/// let combobulator = Combobulator()
/// let cancellable = combobulator.flubberBatchName.sink { print("batch", $0) }
/// combobulator.finish(batch: "B-12")  // prints "batch B-12"
/// ```
///
/// As in Shuttle, the wrapped value *is* the subject: send with `x.send(_:)`, subscribe with
/// `x.sink` or through ``Subscribing``. There is no projected value. Without a type argument,
/// `@Event var x` is an event of `Void` (``AnonymousEvent``). The subject is created with the
/// property and sends nothing until you call `send`; a subscriber receives only values sent
/// after it subscribed. The property is a settable `var`, so it can be replaced by another
/// subject, which existing subscribers do not follow.
///
/// > Thread safety: The subject may be used from any thread. Replacing it (setting the property)
/// > is an ordinary property write and needs the owner's own synchronisation.
@propertyWrapper
public struct Event<T>: Sendable {
  /// The subject.
  public var wrappedValue: ObservableEvent<T>

  /// Creates the property with a new subject of `T`.
  ///
  /// Written `@Event<String> var name`, or `@Event var name: ObservableEvent<String>`.
  public init() {
    wrappedValue = ObservableEvent<T>()
  }
}

extension Event where T == Void {
  /// Creates the property with a new subject of `Void`, so that a bare `@Event var refresh`
  /// needs no type argument.
  public init() {
    wrappedValue = AnonymousEvent()
  }
}

/// A property whose value is a new ``ObservableStream``: a `CurrentValueSubject<T, Never>`
/// seeded with a value.
///
/// ```swift
/// final class Combobulator {
///   @EventStream(value: 0) var flubberCount           // CurrentValueSubject<Int, Never>
///   @EventStream<String?>(value: nil) var lastError  // CurrentValueSubject<String?, Never>
/// }
///
/// let combobulator = Combobulator()
/// let cancellable = combobulator.flubberCount.sink { print("count", $0) }  // prints "count 0"
/// combobulator.flubberCount.value = 12                                     // prints "count 12"
/// combobulator.flubberCount.send(13)                                       // prints "count 13"
/// ```
///
/// As in Shuttle, the wrapped value *is* the subject, and there is no projected value. Set the
/// current value with `x.value = …` or `x.send(…)`; read it with `x.value`. Every new subscriber
/// receives the current value at once, then each later value.
///
/// > Thread safety: The subject may be used from any thread. Replacing it (setting the property)
/// > is an ordinary property write and needs the owner's own synchronisation.
@propertyWrapper
public struct EventStream<T>: Sendable {
  /// The subject.
  public var wrappedValue: ObservableStream<T>

  /// Creates the property with a new subject whose current value is `value`.
  ///
  /// - Parameter value: The first current value, sent to each subscriber until it changes.
  public init(value: T) {
    wrappedValue = ObservableStream<T>(value)
  }
}
