public import StreamCore

/// A type of object with a publisher that emits before the object has changed.
///
/// ```swift
/// final class Contact: ObservableObject {
///   @Published var name: String
///   @Published var age: Int
///   init(name: String, age: Int) {
///     self.name = name
///     self.age = age
///   }
/// }
/// let john = Contact(name: "John Appleseed", age: 24)
/// let token = john.objectWillChange.sink { print("age was", john.age) }
/// john.age += 1  // prints "age was 24"
/// ```
///
/// Combine's `ObservableObject`. By default, ``objectWillChange`` is an
/// ``ObservableObjectPublisher`` that fires before any `@Published` property of the object
/// changes, including properties declared in superclasses and subclasses: once per assignment,
/// before the property's own subscribers, while the property still reads the old value.
///
/// Linux has no Objective-C runtime, so the default ``objectWillChange`` finds the `@Published`
/// properties with `Mirror`, the object's and each superclass's, the first time it is read. It
/// stores one publisher in the first property's storage and gives the same publisher to the
/// others; later reads find it in the first property. An object with no `@Published` property
/// gets a new publisher on each read, which never fires. An object that provides its own
/// `customMirror` (`CustomReflectable`) hides its properties from `Mirror`; give it its
/// own `objectWillChange` and send it from `willSet`.
///
/// Declaring your own `objectWillChange`, of any publisher type, replaces the default one, and
/// `@Published` properties then do not send it.
///
/// > Thread safety: ``objectWillChange`` may be read from any thread, and every read returns
/// > the same publisher. It fires on the thread that delivers the property's new value.
public protocol ObservableObject: AnyObject {
  /// The type of publisher that emits before the object has changed.
  associatedtype ObjectWillChangePublisher: Publisher = ObservableObjectPublisher
  where ObjectWillChangePublisher.Failure == Never

  /// A publisher that emits before the object has changed.
  var objectWillChange: ObjectWillChangePublisher { get }
}

extension ObservableObject where ObjectWillChangePublisher == ObservableObjectPublisher {
  /// A publisher that emits before any `@Published` property of the object changes.
  ///
  /// ```swift
  /// let token = model.objectWillChange.sink { print("about to change") }
  /// ```
  ///
  /// See ``ObservableObject`` for how it is found and stored.
  public var objectWillChange: ObservableObjectPublisher {
    var cells: [any WillChangeSource] = []
    var mirror: Mirror? = Mirror(reflecting: self)
    while let current = mirror {
      for child in current.children {
        guard let property = child.value as? any PublishedProperty else { continue }
        let cell = property.willChangeSource
        if cells.isEmpty, let shared = cell.sharedWillChange {
          return shared
        }
        cells.append(cell)
      }
      mirror = current.superclassMirror
    }
    guard let first = cells.first else {
      return ObservableObjectPublisher()
    }
    // The first property decides, so concurrent first reads agree on one publisher.
    let publisher = first.installWillChange(ObservableObjectPublisher())
    for cell in cells.dropFirst() {
      _ = cell.installWillChange(publisher)
    }
    first.markWillChangeShared()
    return publisher
  }
}

/// A publisher that publishes changes from observable objects.
///
/// ```swift
/// final class Counter: ObservableObject {
///   let objectWillChange = ObservableObjectPublisher()
///   var count = 0 {
///     willSet { objectWillChange.send() }
///   }
/// }
/// ```
///
/// The default `objectWillChange` of an ``ObservableObject``. As Combine's, it sends each signal
/// to every subscriber, whatever it requested (a request is not needed and changes nothing),
/// and it never completes. Each subscription is described as `"ObservableObjectPublisher"`.
///
/// > Thread safety: ``send()`` may be called from any thread; each subscriber receives one
/// > signal at a time, on the sending thread (a second sender waits, as with a subject).
public final class ObservableObjectPublisher: Publisher, Sendable {
  public typealias Output = Void
  public typealias Failure = Never

  /// The live subscriptions, in subscription order.
  private let subscriptions = LockedState<[any WillChangeSignal]>([])

  /// Creates an observable object publisher instance.
  public init() {}

  /// Attaches a subscriber, which receives every later ``send()``.
  public func receive<S: Subscriber>(subscriber: S) where S.Input == Void, S.Failure == Never {
    let subscription = WillChangeSubscription(parent: self, downstream: subscriber)
    subscriptions.withLock { $0.append(subscription) }
    subscriber.receive(subscription: subscription)
  }

  /// Sends the changed value to the downstream subscribers.
  public func send() {
    for subscription in subscriptions.withLock({ $0 }) {
      subscription.signal()
    }
  }

  /// Drops a cancelled subscription; it is released after the lock.
  fileprivate func remove(_ subscription: AnyObject) {
    let removed = subscriptions.withLock { list -> (any WillChangeSignal)? in
      guard let index = list.firstIndex(where: { $0 === subscription }) else { return nil }
      return list.remove(at: index)
    }
    _ = removed
  }
}

/// A subscription of ``ObservableObjectPublisher``, seen without its subscriber's type.
private protocol WillChangeSignal: AnyObject, Sendable {
  /// Delivers one signal, unless cancelled.
  func signal()
}

/// One subscriber's subscription to an ``ObservableObjectPublisher``: it delivers every signal
/// through its gate (Combine's per-subscriber recursive lock) and ignores demand.
// Sendable: `downstream` and `parent` are guarded by `lock`; the subscriber is called outside it,
// inside `gate`.
private final class WillChangeSubscription<Downstream: Subscriber>: @unchecked Sendable,
  WillChangeSignal, Subscription, CustomStringConvertible, CustomReflectable,
  CustomPlaygroundDisplayConvertible
where Downstream.Input == Void, Downstream.Failure == Never {
  private let lock = Lock()
  private let gate = DeliveryGate()
  /// `nil` once cancelled.
  private var downstream: Downstream?
  /// Weak, so that a subscriber that never cancels doesn't keep the publisher alive.
  private weak var parent: ObservableObjectPublisher?

  init(parent: ObservableObjectPublisher, downstream: Downstream) {
    self.parent = parent
    self.downstream = downstream
  }

  func signal() {
    guard let downstream = lock.withLock({ downstream }) else { return }
    gate.pass(as: ThreadID.current) { _ = downstream.receive(()) }
  }

  /// Ignored: every subscriber receives every signal, as in Combine.
  func request(_ demand: Subscribers.Demand) {}

  func cancel() {
    // Both taken out, to be released after the lock.
    let (parent, released) = lock.withLock { () -> (ObservableObjectPublisher?, Downstream?) in
      (self.parent.take(), downstream.take())
    }
    guard released != nil else { return }
    parent?.remove(self)
  }

  var description: String { "ObservableObjectPublisher" }

  /// The subscriber, as Combine's mirror shows it.
  var customMirror: Mirror {
    Mirror(self, children: ["downstream": lock.withLock { downstream } as Any])
  }

  var playgroundDescription: Any { description }
}

/// Storage that an object's `objectWillChange` can connect to: a `@Published` property's.
protocol WillChangeSource: AnyObject {
  var sharedWillChange: ObservableObjectPublisher? { get }
  func installWillChange(_ candidate: ObservableObjectPublisher) -> ObservableObjectPublisher
  func markWillChangeShared()
}

/// Lets `Mirror` find a `@Published` property of any value type.
protocol PublishedProperty {
  var willChangeSource: any WillChangeSource { get }
}

extension Published: PublishedProperty {
  var willChangeSource: any WillChangeSource { storage }
}
