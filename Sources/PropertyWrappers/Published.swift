public import StreamCore

/// A type that publishes a property marked with an attribute.
///
/// ```swift
/// final class Weather {
///   @Published var temperature = 20.0
/// }
/// let weather = Weather()
/// let token = weather.$temperature.sink { print("now", $0) }  // prints "now 20.0"
/// weather.temperature = 25                                   // prints "now 25.0"
/// ```
///
/// Combine's `@Published`. The projected value, `$property`, is a ``Publisher`` that sends the
/// current value to each new subscriber, then every assigned value (equal ones included). As in
/// Combine, a value is published in the property's `willSet`: subscribers, and the enclosing
/// ``ObservableObject``'s `objectWillChange` before them, run before the property's storage
/// changes, so reading the property inside them returns the old value.
///
/// `@Published` is only available on properties of classes; on a struct or a local variable it
/// does not compile, as in Combine. It reaches its storage through the enclosing-instance
/// subscript (`static subscript(_enclosingInstance:wrapped:storage:)`), the underscored but
/// long-standing language feature Combine itself uses; it works on Linux with Swift 6.
///
/// Differences from Combine:
///
/// - Assignments are thread-safe. Values are delivered one at a time in the order they were
///   assigned: one assigned from inside a subscriber, or from another thread during a delivery,
///   is queued and delivered (then stored) as soon as the current one is done. So the last value
///   every subscriber receives is the property's value. (In Combine, a nested assignment is
///   delivered first and then overwritten by the outer one.)
/// - `$property` can be passed to ``StreamCore/Publisher/assign(to:)`` but cannot be replaced by
///   another publisher.
///
/// > Thread safety: The property may be read and assigned from any thread. Values are delivered
/// > on the assigning thread, or on the thread already delivering when one is under way. Until
/// > its delivery is done, a queued value is not yet what the property reads.
@propertyWrapper
public struct Published<Value> {
  @usableFromInline
  let cell: ValueCell<Value>

  /// Creates the published instance with an initial wrapped value.
  ///
  /// Don't call this initializer directly. Instead, declare a property with the `@Published`
  /// attribute and an initial value: `@Published var count = 0`.
  ///
  /// - Parameter wrappedValue: The publisher's initial value.
  public init(wrappedValue: Value) {
    cell = ValueCell(wrappedValue, published: true)
  }

  /// Creates the published instance with an initial value.
  ///
  /// - Parameter initialValue: The publisher's initial value.
  public init(initialValue: Value) {
    self.init(wrappedValue: initialValue)
  }

  /// Unavailable: the enclosing-instance subscript gives a class its property's value.
  @available(*, unavailable, message: "@Published is only available on properties of classes")
  public var wrappedValue: Value {
    get { preconditionFailure("@Published is only available on properties of classes") }
    set { preconditionFailure("@Published is only available on properties of classes") }
  }

  /// The property's publisher, `$property`.
  ///
  /// Setting it exists so that `$property` can be passed `inout` to
  /// ``StreamCore/Publisher/assign(to:)``; assigning a different publisher is a programming
  /// error and traps.
  public var projectedValue: Publisher {
    get { Publisher(cell: cell) }
    nonmutating set {
      precondition(
        newValue.cell === cell,
        "a @Published property's publisher cannot be replaced by another publisher"
      )
    }
  }

  /// Reads and writes the property of a class instance; the compiler calls this, not user code.
  public static subscript<EnclosingSelf: AnyObject>(
    _enclosingInstance object: EnclosingSelf,
    wrapped wrappedKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Value>,
    storage storageKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Published<Value>>
  ) -> Value {
    get { object[keyPath: storageKeyPath].cell.settled }
    set { object[keyPath: storageKeyPath].cell.set(newValue) }
  }
}

extension Published: Sendable where Value: Sendable {}

extension Published {
  /// A publisher for properties marked with the `@Published` attribute.
  ///
  /// ```swift
  /// let token = model.$title.sink { label.text = $0 }
  /// ```
  ///
  /// Each new subscriber receives the property's current value on its first demand, then every
  /// assigned value; a value assigned while a subscriber has no demand is kept for it (only the
  /// latest). It never completes. Its subscriptions describe themselves as
  /// `"PublishedSubject"`, as Combine's do.
  ///
  /// > Thread safety: Subscribe, request and cancel from any thread.
  public struct Publisher: StreamCore.Publisher {
    public typealias Output = Value
    public typealias Failure = Never

    @usableFromInline
    let cell: ValueCell<Value>

    /// Attaches a subscriber, which receives the current value first.
    @inlinable
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Value, S.Failure == Never {
      cell.subject.receive(subscriber: subscriber)
    }

    /// Attaches a subscriber with closure-based behavior, as `Publisher`'s
    /// `sink(receiveCompletion:receiveValue:)` does, with one allocation fewer: the closures
    /// are the subscription's subscriber, with no `Subscribers.Sink` between.
    ///
    /// > Thread safety: May be called from any thread; the closures are never called from two
    /// > threads at once.
    ///
    /// - Parameters:
    ///   - receiveCompletion: The closure to execute on completion (never called: the
    ///     publisher doesn't complete).
    ///   - receiveValue: The closure to execute on receipt of a value.
    /// - Returns: A cancellable that cancels the subscription.
    @inlinable
    public func sink(
      receiveCompletion: @escaping (Subscribers.Completion<Never>) -> Void,
      receiveValue: @escaping (Value) -> Void
    ) -> AnyCancellable {
      cell.subject.sink(receiveCompletion: receiveCompletion, receiveValue: receiveValue)
    }

    /// Attaches a subscriber with closure-based behavior, as `Publisher`'s
    /// `sink(receiveValue:)` does, with one allocation fewer.
    ///
    /// > Thread safety: May be called from any thread; the closure is never called from two
    /// > threads at once.
    ///
    /// - Parameter receiveValue: The closure to execute on receipt of a value.
    /// - Returns: A cancellable that cancels the subscription.
    @inlinable
    public func sink(receiveValue: @escaping (Value) -> Void) -> AnyCancellable {
      cell.subject.sink(receiveValue: receiveValue)
    }
  }
}

extension Published.Publisher: Sendable where Value: Sendable {}

extension Publisher where Failure == Never {
  /// Republishes elements received from a publisher, by assigning them to a property marked as
  /// a publisher.
  ///
  /// ```swift
  /// final class Clock {
  ///   @Published var now = 0
  ///   init(ticks: some Publisher<Int, Never>) {
  ///     ticks.assign(to: &$now)
  ///   }
  /// }
  /// ```
  ///
  /// Each value is assigned as `property = value` would: `objectWillChange` fires first, then the
  /// property's subscribers. There is no `AnyCancellable`: the subscription lives as long as the
  /// property, that is, as long as its owner, and is cancelled when the owner is deinitialised.
  /// The subscription holds the property's storage weakly, so `$a.map(…).assign(to: &$b)` inside
  /// one object makes no retain cycle. Requests unlimited values.
  ///
  /// > Thread safety: The upstream may send from any thread; each value is assigned on the
  /// > thread that sends it, as an assignment to the ``Published`` property from that thread.
  ///
  /// - Parameter published: A property marked with the `@Published` attribute, which receives
  ///   and republishes all elements from this publisher.
  public func assign(to published: inout Published<Output>.Publisher) {
    subscribe(PublishedAssignment(cell: published.cell))
  }
}

/// The subscriber behind `assign(to:)`: assigns each value to the property's storage, which
/// keeps the subscription.
private final class PublishedAssignment<Value>: Subscriber, Sendable {
  typealias Input = Value
  typealias Failure = Never

  weak let cell: ValueCell<Value>?

  init(cell: ValueCell<Value>) {
    self.cell = cell
  }

  func receive(subscription: any Subscription) {
    guard let cell else { return subscription.cancel() }
    cell.retain(subscription)
    subscription.request(.unlimited)
  }

  func receive(_ input: Value) -> Subscribers.Demand {
    cell?.set(input)
    return .none
  }

  func receive(completion: Subscribers.Completion<Never>) {}
}
