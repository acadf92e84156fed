import PropertyWrappers
import StreamCore

/// A closure with no arguments and no result.
///
/// ```swift
/// let refresh: Action = { print("refreshing") }
/// refresh()
/// ```
///
/// Shuttle's alias, kept for source compatibility.
public typealias Action = () -> Void

/// A closure that takes an **optional** `T` and returns nothing.
///
/// ```swift
/// let show: TypedAction<String> = { print($0 ?? "nothing") }
/// show(nil)
/// ```
///
/// As in Shuttle, the parameter is optional. `Subscribing`'s `performing:` closures take a plain
/// `(T) -> Void` instead.
public typealias TypedAction<T> = (T?) -> Void

/// A closure that takes two optionals, a `T?` and an `X?`, and returns nothing.
///
/// ```swift
/// let pair: Typed2DAction<Int, String> = { number, name in print(number ?? 0, name ?? "") }
/// ```
public typealias Typed2DAction<T, X> = (T?, X?) -> Void

/// An **optional** closure that takes a variadic list of `T?`.
///
/// ```swift
/// let log: MultiAction<Int> = { values in print(values) }
/// log?(1, nil, 3)
/// ```
///
/// As in Shuttle, the alias itself is an `Optional` type.
public typealias MultiAction<T> = ((T?...) -> Void)?
