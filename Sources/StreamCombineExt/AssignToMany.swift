import SignalOperators
public import StreamCore

extension Publisher where Failure == Never {
  /// Assigns each value to a property of each of two objects, retaining both.
  ///
  /// ```swift
  /// final class Label { var text = "" }
  /// let (title, subtitle) = (Label(), Label())
  /// let cancellable = Just("hi").assign(to: \.text, on: title, and: \.text, on: subtitle)
  /// ```
  ///
  /// Requests unlimited values and assigns in the order of the arguments. A `sink` whose closure
  /// holds the objects: they are retained for as long as the returned token is, even after the
  /// completion, as in CombineExt.
  ///
  /// > Thread safety: Assignments happen on the thread the publisher delivers on. The returned
  /// > token may be cancelled from any thread.
  ///
  /// - Parameters:
  ///   - keyPath1: The property of `object1` to assign.
  ///   - object1: The first object.
  ///   - keyPath2: The property of `object2` to assign.
  ///   - object2: The second object.
  /// - Returns: A cancellable that cancels the subscription.
  public func assign<Root1, Root2>(
    to keyPath1: ReferenceWritableKeyPath<Root1, Output>,
    on object1: Root1,
    and keyPath2: ReferenceWritableKeyPath<Root2, Output>,
    on object2: Root2
  ) -> AnyCancellable {
    sink { value in
      object1[keyPath: keyPath1] = value
      object2[keyPath: keyPath2] = value
    }
  }

  /// Assigns each value to a property of each of three objects, retaining them.
  ///
  /// ```swift
  /// final class Label { var text = "" }
  /// let (a, b, c) = (Label(), Label(), Label())
  /// let cancellable = Just("hi").assign(to: \.text, on: a, and: \.text, on: b, and: \.text, on: c)
  /// ```
  ///
  /// As ``StreamCore/Publisher/assign(to:on:and:on:)``, with a third object.
  ///
  /// > Thread safety: Assignments happen on the thread the publisher delivers on. The returned
  /// > token may be cancelled from any thread.
  ///
  /// - Parameters:
  ///   - keyPath1: The property of `object1` to assign.
  ///   - object1: The first object.
  ///   - keyPath2: The property of `object2` to assign.
  ///   - object2: The second object.
  ///   - keyPath3: The property of `object3` to assign.
  ///   - object3: The third object.
  /// - Returns: A cancellable that cancels the subscription.
  public func assign<Root1, Root2, Root3>(
    to keyPath1: ReferenceWritableKeyPath<Root1, Output>,
    on object1: Root1,
    and keyPath2: ReferenceWritableKeyPath<Root2, Output>,
    on object2: Root2,
    and keyPath3: ReferenceWritableKeyPath<Root3, Output>,
    on object3: Root3
  ) -> AnyCancellable {
    sink { value in
      object1[keyPath: keyPath1] = value
      object2[keyPath: keyPath2] = value
      object3[keyPath: keyPath3] = value
    }
  }
}
