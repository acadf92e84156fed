/// A type that defines methods for encoding, such as a JSON encoder.
///
/// ```swift
/// struct LineEncoder: TopLevelEncoder {
///   func encode<T: Encodable>(_ value: T) throws -> String { String(describing: value) }
/// }
/// ```
///
/// SignalOperators' `encode(encoder:)` works with any conforming type.
///
/// > Thread safety: The protocol requires none. `encode(encoder:)` calls the encoder on the thread
/// > that delivers each value; subscriptions running at the same time may call one encoder
/// > concurrently.
public protocol TopLevelEncoder<Output> {
  /// The type this encoder produces.
  associatedtype Output

  /// Encodes an instance of the indicated type.
  ///
  /// - Parameter value: The instance to encode.
  /// - Returns: The encoded representation.
  /// - Throws: An error if the value can't be encoded.
  func encode<T: Encodable>(_ value: T) throws -> Output
}

/// A type that defines methods for decoding, such as a JSON decoder.
///
/// ```swift
/// let user = try decoder.decode(User.self, from: data)
/// ```
///
/// SignalOperators' `decode(type:decoder:)` works with any conforming type.
///
/// > Thread safety: The protocol requires none. `decode(type:decoder:)` calls the decoder on the
/// > thread that delivers each value; subscriptions running at the same time may call one
/// > decoder concurrently.
public protocol TopLevelDecoder<Input> {
  /// The type this decoder accepts.
  associatedtype Input

  /// Decodes an instance of the indicated type.
  ///
  /// - Parameters:
  ///   - type: The type to decode.
  ///   - from: The encoded representation.
  /// - Returns: The decoded instance.
  /// - Throws: An error if the input can't be decoded as `type`.
  func decode<T: Decodable>(_ type: T.Type, from: Input) throws -> T
}
