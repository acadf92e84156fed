import SignalOperators
import StreamCore

/// How `assign(to:on:ownership:)` holds the object it assigns to.
///
/// ```swift
/// final class Model { var count = 0 }
/// let model = Model()
/// let cancellable = Just(3).assign(to: \.count, on: model, ownership: .weak)
/// ```
///
/// > Thread safety: A value type.
public enum ObjectOwnership: Sendable, Hashable {
  /// Retain the object until the subscription ends.
  case strong

  /// Hold the object weakly: once it is gone, values are dropped.
  case weak

  /// Hold the object unowned: a value that arrives after it is gone traps.
  case unowned
}
