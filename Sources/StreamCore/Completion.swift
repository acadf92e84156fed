extension Subscribers {
  /// A signal that a publisher doesn't produce additional elements, either due to normal
  /// completion or an error.
  ///
  /// ```swift
  /// subject.send(completion: .finished)
  /// subject.send(completion: .failure(URLError.timedOut))
  /// ```
  ///
  /// Encoded as `{"success": true}` or `{"success": false, "error": …}`.
  ///
  /// > Thread safety: A value type; `Sendable` when `Failure` is.
  public enum Completion<Failure: Error> {
    /// The publisher finished normally.
    case finished

    /// The publisher stopped publishing due to the indicated error.
    case failure(Failure)
  }
}

extension Subscribers.Completion: Equatable where Failure: Equatable {}

extension Subscribers.Completion: Hashable where Failure: Hashable {}

extension Subscribers.Completion: Sendable where Failure: Sendable {}

extension Subscribers.Completion {
  private enum CodingKeys: String, CodingKey {
    case success
    case error
  }
}

extension Subscribers.Completion: Encodable where Failure: Encodable {
  /// Encodes `success`, and `error` for a failure.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    switch self {
    case .finished:
      try container.encode(true, forKey: .success)
    case .failure(let error):
      try container.encode(false, forKey: .success)
      try container.encode(error, forKey: .error)
    }
  }
}

extension Subscribers.Completion: Decodable where Failure: Decodable {
  /// Decodes the form written by `encode(to:)`.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    if try container.decode(Bool.self, forKey: .success) {
      self = .finished
    } else {
      self = .failure(try container.decode(Failure.self, forKey: .error))
    }
  }
}
