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
/// An assignment made from inside a subscriber is delivered at once, re-entrantly, and then the
/// outer assignment is stored: the property ends with the outer value, as in Combine.
///
/// > Thread safety: The property may be read and assigned from any thread. A value is delivered
/// > on the assigning thread, and the assignment returns once every subscriber with demand has
/// > received it; one assigned from another thread meanwhile waits for a subscriber that is
/// > busy, as in Combine.
@propertyWrapper
public struct Published<Value> {
  @usableFromInline
  let storage: PublishedStorage<Value>

  /// Creates the published instance with an initial wrapped value.
  ///
  /// Don't call this initializer directly. Instead, declare a property with the `@Published`
  /// attribute and an initial value: `@Published var count = 0`.
  ///
  /// - Parameter wrappedValue: The publisher's initial value.
  public init(wrappedValue: Value) {
    storage = PublishedStorage(wrappedValue)
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
  /// ``StreamCore/Publisher/assign(to:)``; assigning another property's publisher changes
  /// nothing, as in Combine.
  public var projectedValue: Publisher {
    get { Publisher(storage: storage) }
    nonmutating set {}
  }

  /// Reads and writes the property of a class instance; the compiler calls this, not user code.
  public static subscript<EnclosingSelf: AnyObject>(
    _enclosingInstance object: EnclosingSelf,
    wrapped wrappedKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Value>,
    storage storageKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Published<Value>>
  ) -> Value {
    get { object[keyPath: storageKeyPath].storage.value }
    set { object[keyPath: storageKeyPath].storage.set(newValue) }
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
  /// assigned value; a subscriber that misses a value for lack of demand receives the
  /// property's value at its next request. It never completes. Its subscriptions describe themselves as
  /// `"PublishedSubject"`, as Combine's do.
  ///
  /// > Thread safety: Subscribe, request and cancel from any thread.
  public struct Publisher: StreamCore.Publisher {
    public typealias Output = Value
    public typealias Failure = Never

    @usableFromInline
    let storage: PublishedStorage<Value>

    /// Attaches a subscriber, which receives the current value first.
    @inlinable
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Value, S.Failure == Never {
      storage.subject.receive(subscriber: subscriber)
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
    subscribe(PublishedAssignment(storage: published.storage))
  }
}

/// The subscriber behind `assign(to:)`: assigns each value to the property's storage, which
/// keeps the subscription.
private final class PublishedAssignment<Value>: Subscriber, Sendable {
  typealias Input = Value
  typealias Failure = Never

  weak let storage: PublishedStorage<Value>?

  init(storage: PublishedStorage<Value>) {
    self.storage = storage
  }

  func receive(subscription: any Subscription) {
    guard let storage else { return subscription.cancel() }
    storage.retain(subscription)
    subscription.request(.unlimited)
  }

  func receive(_ input: Value) -> Subscribers.Demand {
    storage?.set(input)
    return .none
  }

  func receive(completion: Subscribers.Completion<Never>) {}
}
