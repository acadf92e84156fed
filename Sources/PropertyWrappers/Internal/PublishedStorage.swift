public import StreamCore

/// A `@Published` property's storage: its subject, which holds the value, the owner's
/// `objectWillChange` once connected, and the subscriptions that live as long as the property
/// (`assign(to:)`'s).
///
/// An assignment does what Combine's does, in its order: `objectWillChange` fires, the subject
/// sends the new value to the subscribers on the assigning thread, and only then does the value
/// become what the property reads (the subject is made with `publishedValue:`). So an
/// assignment from inside a subscriber is delivered at once, re-entrantly, and the outer
/// assignment, stored last, wins.
// Sendable: `willChange` and `retained` are guarded by `lock`; the subject is Sendable.
@usableFromInline
final class PublishedStorage<Value>: @unchecked Sendable {
  /// Publishes the assigned values, and holds the property's value.
  @usableFromInline
  let subject: CurrentValueSubject<Value, Never>
  @usableFromInline
  let lock = Lock()
  /// The owner's will-change publisher, and whether every `@Published` property of the owner
  /// has it. Only under `lock`.
  @usableFromInline
  var willChange = WillChange.absent
  /// Subscriptions that live as long as the property. Only under `lock`.
  var retained: [any Cancellable] = []

  /// Whether the storage has a will-change publisher, and whether the owner's properties share
  /// it.
  @usableFromInline
  enum WillChange {
    /// None yet.
    case absent
    /// Installed; not every `@Published` property of the owner has it yet.
    case installed(ObservableObjectPublisher)
    /// Every `@Published` property of the owner has it.
    case shared(ObservableObjectPublisher)

    /// The publisher, shared or not.
    @inlinable
    var publisher: ObservableObjectPublisher? {
      switch self {
      case .absent: nil
      case .installed(let publisher), .shared(let publisher): publisher
      }
    }
  }

  init(_ value: Value) {
    subject = CurrentValueSubject(publishedValue: value)
  }

  deinit {
    for subscription in retained {
      subscription.cancel()
    }
  }

  /// The property's value.
  @inlinable
  var value: Value { subject.value }

  /// Assigns `value`: `objectWillChange`, then the subscribers, then the stored value.
  @inlinable
  func set(_ value: Value) {
    lock.withLock { willChange.publisher }?.send()
    subject.send(value)
  }

  /// Keeps `subscription` until the property goes away, then cancels it.
  func retain(_ subscription: any Cancellable) {
    lock.withLock { retained.append(subscription) }
  }
}

extension PublishedStorage: WillChangeSource {
  var sharedWillChange: ObservableObjectPublisher? {
    lock.withLock {
      guard case .shared(let publisher) = willChange else { return nil }
      return publisher
    }
  }

  func installWillChange(_ candidate: ObservableObjectPublisher) -> ObservableObjectPublisher {
    lock.withLock {
      if let installed = willChange.publisher { return installed }
      willChange = .installed(candidate)
      return candidate
    }
  }

  func markWillChangeShared() {
    lock.withLock {
      guard case .installed(let publisher) = willChange else { return }
      willChange = .shared(publisher)
    }
  }
}
