import SignalOperators
public import StreamCore

extension Publisher where Failure == Never {
  /// Assigns each value to a property of an object, held as `ownership` says.
  ///
  /// ```swift
  /// final class Model { var count = 0 }
  /// let model = Model()
  /// let counts = PassthroughSubject<Int, Never>()
  /// let cancellable = counts.assign(to: \.count, on: model, ownership: .weak)
  /// counts.send(2)  // model.count == 2
  /// ```
  ///
  /// Requests unlimited values. `.strong` is `assign(to:on:)`: the object is retained until the
  /// publisher completes or the token is cancelled. `.weak` holds it weakly, and values that
  /// arrive after it is gone are dropped (the subscription stays until completion or cancel).
  /// `.unowned` holds it unowned; a value after it is gone traps.
  ///
  /// > Thread safety: Assignments happen on the thread the publisher delivers on. The returned
  /// > token may be cancelled from any thread.
  ///
  /// - Parameters:
  ///   - keyPath: The property to assign.
  ///   - object: The object that holds the property.
  ///   - ownership: How the object is held; `.strong` by default.
  /// - Returns: A cancellable that cancels the subscription.
  public func assign<Root: AnyObject>(
    to keyPath: ReferenceWritableKeyPath<Root, Output>,
    on object: Root,
    ownership: ObjectOwnership = .strong
  ) -> AnyCancellable {
    switch ownership {
    case .strong:
      assign(to: keyPath, on: object)
    case .weak:
      sink { [weak object] value in object?[keyPath: keyPath] = value }
    case .unowned:
      sink { [unowned object] value in object[keyPath: keyPath] = value }
    }
  }

  /// Assigns each value to a property of each of two objects, held as `ownership` says.
  ///
  /// ```swift
  /// final class Label { var text = "" }
  /// let (title, subtitle) = (Label(), Label())
  /// let cancellable = Just("hi").assign(
  ///   to: \.text, on: title, and: \.text, on: subtitle, ownership: .weak)
  /// ```
  ///
  /// As ``StreamCore/Publisher/assign(to:on:ownership:)``, for each object; with `.weak`, a
  /// value still reaches the object that is left when the other is gone. With `.strong` it is
  /// ``StreamCore/Publisher/assign(to:on:and:on:)``: the objects stay retained for as long as the
  /// returned token is.
  ///
  /// > Thread safety: Assignments happen on the thread the publisher delivers on, in the order
  /// > of the arguments. The returned token may be cancelled from any thread.
  ///
  /// - Parameters:
  ///   - keyPath1: The property of `object1` to assign.
  ///   - object1: The first object.
  ///   - keyPath2: The property of `object2` to assign.
  ///   - object2: The second object.
  ///   - ownership: How the objects are held.
  /// - Returns: A cancellable that cancels the subscription.
  public func assign<Root1: AnyObject, Root2: AnyObject>(
    to keyPath1: ReferenceWritableKeyPath<Root1, Output>,
    on object1: Root1,
    and keyPath2: ReferenceWritableKeyPath<Root2, Output>,
    on object2: Root2,
    ownership: ObjectOwnership = .strong
  ) -> AnyCancellable {
    switch ownership {
    case .strong:
      assign(to: keyPath1, on: object1, and: keyPath2, on: object2)
    case .weak:
      sink { [weak object1, weak object2] value in
        object1?[keyPath: keyPath1] = value
        object2?[keyPath: keyPath2] = value
      }
    case .unowned:
      sink { [unowned object1, unowned object2] value in
        object1[keyPath: keyPath1] = value
        object2[keyPath: keyPath2] = value
      }
    }
  }

  /// Assigns each value to a property of each of three objects, held as `ownership` says.
  ///
  /// ```swift
  /// final class Label { var text = "" }
  /// let (a, b, c) = (Label(), Label(), Label())
  /// let cancellable = Just("hi").assign(
  ///   to: \.text, on: a, and: \.text, on: b, and: \.text, on: c, ownership: .unowned)
  /// ```
  ///
  /// As ``StreamCore/Publisher/assign(to:on:ownership:)``, for each object. With `.strong` the
  /// objects stay retained for as long as the returned token is.
  ///
  /// > Thread safety: Assignments happen on the thread the publisher delivers on, in the order
  /// > of the arguments. The returned token may be cancelled from any thread.
  ///
  /// - Parameters:
  ///   - keyPath1: The property of `object1` to assign.
  ///   - object1: The first object.
  ///   - keyPath2: The property of `object2` to assign.
  ///   - object2: The second object.
  ///   - keyPath3: The property of `object3` to assign.
  ///   - object3: The third object.
  ///   - ownership: How the objects are held.
  /// - Returns: A cancellable that cancels the subscription.
  public func assign<Root1: AnyObject, Root2: AnyObject, Root3: AnyObject>(
    to keyPath1: ReferenceWritableKeyPath<Root1, Output>,
    on object1: Root1,
    and keyPath2: ReferenceWritableKeyPath<Root2, Output>,
    on object2: Root2,
    and keyPath3: ReferenceWritableKeyPath<Root3, Output>,
    on object3: Root3,
    ownership: ObjectOwnership = .strong
  ) -> AnyCancellable {
    switch ownership {
    case .strong:
      assign(to: keyPath1, on: object1, and: keyPath2, on: object2, and: keyPath3, on: object3)
    case .weak:
      sink { [weak object1, weak object2, weak object3] value in
        object1?[keyPath: keyPath1] = value
        object2?[keyPath: keyPath2] = value
        object3?[keyPath: keyPath3] = value
      }
    case .unowned:
      sink { [unowned object1, unowned object2, unowned object3] value in
        object1[keyPath: keyPath1] = value
        object2[keyPath: keyPath2] = value
        object3[keyPath: keyPath3] = value
      }
    }
  }
}
