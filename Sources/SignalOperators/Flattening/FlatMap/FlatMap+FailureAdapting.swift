public import StreamCore

// Combine's overloads that let a publisher that can't fail be flattened with one that can (and
// the other way round): the side that can't fail gets the other's failure type through
// `setFailureType(to:)`. The overloads for two sides that can't fail pick the plain form.

extension Publisher where Failure == Never {
  /// Flattens into publishers that can fail, giving this publisher their failure type.
  ///
  /// ```swift
  /// let profiles = ids.flatMap { id in fetchProfile(id) }  // ids can't fail; fetches can
  /// ```
  ///
  /// > Thread safety: As ``StreamCore/Publisher/flatMap(maxPublishers:_:)-6p3fs``.
  ///
  /// - Parameters:
  ///   - maxPublishers: The most children subscribed at once; unlimited by default.
  ///   - transform: Makes the child publisher for a value.
  /// - Returns: A publisher of the children's values.
  @inlinable
  public func flatMap<P: Publisher>(
    maxPublishers: Subscribers.Demand = .unlimited,
    _ transform: @escaping (Output) -> P
  ) -> Publishers.FlatMap<P, Publishers.SetFailureType<Self, P.Failure>> {
    Publishers.FlatMap(
      upstream: Publishers.SetFailureType(upstream: self),
      maxPublishers: maxPublishers,
      transform: transform
    )
  }

  /// Flattens into publishers that can't fail either.
  ///
  /// ```swift
  /// let values = (0..<3).publisher.flatMap { Just($0) }
  /// ```
  ///
  /// > Thread safety: As ``StreamCore/Publisher/flatMap(maxPublishers:_:)-6p3fs``.
  ///
  /// - Parameters:
  ///   - maxPublishers: The most children subscribed at once; unlimited by default.
  ///   - transform: Makes the child publisher for a value.
  /// - Returns: A publisher of the children's values.
  @inlinable
  public func flatMap<P: Publisher>(
    maxPublishers: Subscribers.Demand = .unlimited,
    _ transform: @escaping (Output) -> P
  ) -> Publishers.FlatMap<P, Self> where P.Failure == Never {
    Publishers.FlatMap(upstream: self, maxPublishers: maxPublishers, transform: transform)
  }
}

extension Publisher {
  /// Flattens into publishers that can't fail, giving them this publisher's failure type.
  ///
  /// ```swift
  /// let lines = files.flatMap { file in Just(file.name) }  // files can fail; Just can't
  /// ```
  ///
  /// > Thread safety: As ``StreamCore/Publisher/flatMap(maxPublishers:_:)-6p3fs``.
  ///
  /// - Parameters:
  ///   - maxPublishers: The most children subscribed at once; unlimited by default.
  ///   - transform: Makes the child publisher for a value.
  /// - Returns: A publisher of the children's values.
  @inlinable
  public func flatMap<P: Publisher>(
    maxPublishers: Subscribers.Demand = .unlimited,
    _ transform: @escaping (Output) -> P
  ) -> Publishers.FlatMap<Publishers.SetFailureType<P, Failure>, Self> where P.Failure == Never {
    Publishers.FlatMap(upstream: self, maxPublishers: maxPublishers) { value in
      Publishers.SetFailureType(upstream: transform(value))
    }
  }
}

extension Publisher where Output: Publisher, Failure == Never {
  /// Switches between inner publishers that can fail, giving this publisher their failure type.
  ///
  /// ```swift
  /// let results = queries.map { search($0) }.switchToLatest()  // queries can't fail
  /// ```
  ///
  /// > Thread safety: As the plain `switchToLatest()`.
  ///
  /// - Returns: A publisher of the latest inner publisher's values.
  public func switchToLatest()
    -> Publishers.SwitchToLatest<
      Output, Publishers.SetFailureType<Self, Output.Failure>
    >
  {
    Publishers.SwitchToLatest(upstream: Publishers.SetFailureType(upstream: self))
  }
}

extension Publisher where Output: Publisher, Failure == Never, Output.Failure == Never {
  /// Switches between inner publishers when neither side can fail.
  ///
  /// ```swift
  /// let latest = pages.map { Just($0) }.switchToLatest()
  /// ```
  ///
  /// > Thread safety: As the plain `switchToLatest()`.
  ///
  /// - Returns: A publisher of the latest inner publisher's values.
  public func switchToLatest() -> Publishers.SwitchToLatest<Output, Self> {
    Publishers.SwitchToLatest(upstream: self)
  }
}

extension Publisher where Output: Publisher, Output.Failure == Never {
  /// Switches between inner publishers that can't fail, giving them this publisher's failure
  /// type.
  ///
  /// ```swift
  /// let latest = feed.map { Just($0) }.switchToLatest()  // feed can fail; Just can't
  /// ```
  ///
  /// > Thread safety: As the plain `switchToLatest()`.
  ///
  /// - Returns: A publisher of the latest inner publisher's values.
  public func switchToLatest()
    -> Publishers.SwitchToLatest<
      Publishers.SetFailureType<Output, Failure>,
      Publishers.Map<Self, Publishers.SetFailureType<Output, Failure>>
    >
  {
    Publishers.SwitchToLatest(
      upstream: Publishers.Map(upstream: self) { Publishers.SetFailureType(upstream: $0) }
    )
  }
}
