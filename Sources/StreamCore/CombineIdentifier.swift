import Synchronization

private let nextIdentifier = Atomic<UInt64>(0)

/// A unique identifier for identifying publisher streams.
///
/// ```swift
/// let id = CombineIdentifier()
/// let sameObject = CombineIdentifier(someObject) == CombineIdentifier(someObject)  // true
/// ```
///
/// Identifiers made with ``init()`` come from a process-wide counter and never equal an
/// identifier made from an object.
///
/// > Thread safety: A value type; ``init()`` may be called from any thread.
public struct CombineIdentifier: Hashable, CustomStringConvertible, Sendable {
  private let rawValue: UInt64

  /// Creates a unique identifier.
  public init() {
    // The top bit keeps counter values apart from object addresses, which never have it set.
    rawValue = nextIdentifier.wrappingAdd(1, ordering: .relaxed).newValue | (1 << 63)
  }

  /// Creates an identifier for the given object, equal for the same object.
  ///
  /// - Parameter obj: The object to identify.
  public init(_ obj: AnyObject) {
    rawValue = UInt64(UInt(bitPattern: ObjectIdentifier(obj)))
  }

  /// The identifier in hexadecimal.
  public var description: String {
    "0x" + String(rawValue, radix: 16)
  }
}

/// A protocol for uniquely identifying publisher streams.
///
/// ```swift
/// print(subscriber.combineIdentifier)
/// ```
///
/// Classes get an identifier derived from their object identity for free.
///
/// > Thread safety: An identifier never changes, so it may be read from any thread.
public protocol CustomCombineIdentifierConvertible {
  /// A unique identifier for identifying publisher streams.
  var combineIdentifier: CombineIdentifier { get }
}

extension CustomCombineIdentifierConvertible where Self: AnyObject {
  /// An identifier derived from the object's identity.
  public var combineIdentifier: CombineIdentifier {
    CombineIdentifier(self)
  }
}
