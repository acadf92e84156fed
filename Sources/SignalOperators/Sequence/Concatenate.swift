public import StreamCore

extension Publisher {
  /// Publishes `elements` before this publisher's values.
  ///
  /// ```swift
  /// [3, 4].publisher.prepend(1, 2).sink { print($0) }  // 1, 2, 3, 4
  /// ```
  ///
  /// > Thread safety: `request(_:)` and `cancel()` are safe from any thread.
  ///
  /// - Parameter elements: The values to publish first.
  /// - Returns: A publisher of `elements` followed by this publisher's values.
  public func prepend(
    _ elements: Output...
  ) -> Publishers.Concatenate<Publishers.Sequence<[Output], Failure>, Self> {
    prepend(elements)
  }

  /// Publishes the elements of `elements` before this publisher's values.
  ///
  /// ```swift
  /// [3, 4].publisher.prepend(1...2).sink { print($0) }  // 1, 2, 3, 4
  /// ```
  ///
  /// > Thread safety: `request(_:)` and `cancel()` are safe from any thread.
  ///
  /// - Parameter elements: The sequence to publish first.
  /// - Returns: A publisher of `elements` followed by this publisher's values.
  public func prepend<S: Sequence>(
    _ elements: S
  ) -> Publishers.Concatenate<Publishers.Sequence<S, Failure>, Self> where S.Element == Output {
    prepend(Publishers.Sequence(sequence: elements))
  }

  /// Publishes `publisher`'s values, and once it finishes, this publisher's values.
  ///
  /// ```swift
  /// live.prepend(cached).sink { show($0) }
  /// ```
  ///
  /// This publisher is subscribed only after `publisher` finished; if `publisher` fails, the
  /// failure goes downstream and this publisher is never subscribed.
  ///
  /// <!-- marbles:prepend-publisher -->
  /// Marble diagram of `prepend(prefix)`, made by running it (a character is a tick of virtual
  /// time; `|` finished, `#` failed, `(ab)` one instant):
  ///
  /// ```text
  /// input   --1--2--3|
  /// prefix  -a-b|
  /// output  -a-b-2--3|
  /// ```
  ///
  /// ![Marble diagram of prepend(prefix)](marble-prepend-publisher)
  /// <!-- /marbles:prepend-publisher -->
  ///
  /// > Thread safety: `request(_:)` and `cancel()` are safe from any thread.
  ///
  /// - Parameter publisher: The publisher whose values come first.
  /// - Returns: A publisher of `publisher`'s values followed by this publisher's values.
  public func prepend<P: Publisher>(
    _ publisher: P
  ) -> Publishers.Concatenate<P, Self> where P.Output == Output, P.Failure == Failure {
    Publishers.Concatenate(prefix: publisher, suffix: self)
  }

  /// Publishes `elements` after this publisher finishes.
  ///
  /// ```swift
  /// [1, 2].publisher.append(3, 4).sink { print($0) }  // 1, 2, 3, 4
  /// ```
  ///
  /// > Thread safety: `request(_:)` and `cancel()` are safe from any thread.
  ///
  /// - Parameter elements: The values to publish last.
  /// - Returns: A publisher of this publisher's values followed by `elements`.
  public func append(
    _ elements: Output...
  ) -> Publishers.Concatenate<Self, Publishers.Sequence<[Output], Failure>> {
    append(elements)
  }

  /// Publishes the elements of `elements` after this publisher finishes.
  ///
  /// ```swift
  /// [1, 2].publisher.append(3...4).sink { print($0) }  // 1, 2, 3, 4
  /// ```
  ///
  /// > Thread safety: `request(_:)` and `cancel()` are safe from any thread.
  ///
  /// - Parameter elements: The sequence to publish last.
  /// - Returns: A publisher of this publisher's values followed by `elements`.
  public func append<S: Sequence>(
    _ elements: S
  ) -> Publishers.Concatenate<Self, Publishers.Sequence<S, Failure>> where S.Element == Output {
    append(Publishers.Sequence(sequence: elements))
  }

  /// Publishes this publisher's values, and once it finishes, `publisher`'s values.
  ///
  /// ```swift
  /// history.append(live).sink { show($0) }
  /// ```
  ///
  /// `publisher` is subscribed only after this publisher finished; if this publisher fails, the
  /// failure goes downstream and `publisher` is never subscribed.
  ///
  /// <!-- marbles:append-publisher -->
  /// Marble diagram of `append(suffix)`, made by running it (a character is a tick of virtual time;
  /// `|` finished, `#` failed, `(ab)` one instant):
  ///
  /// ```text
  /// input   -a-b|
  /// suffix  -1-2|
  /// output  -a-b-1-2|
  /// ```
  ///
  /// ![Marble diagram of append(suffix)](marble-append-publisher)
  /// <!-- /marbles:append-publisher -->
  ///
  /// > Thread safety: `request(_:)` and `cancel()` are safe from any thread.
  ///
  /// - Parameter publisher: The publisher whose values come last.
  /// - Returns: A publisher of this publisher's values followed by `publisher`'s values.
  public func append<P: Publisher>(
    _ publisher: P
  ) -> Publishers.Concatenate<Self, P> where P.Output == Output, P.Failure == Failure {
    Publishers.Concatenate(prefix: self, suffix: publisher)
  }
}

extension Publishers {
  /// A publisher that publishes all of one publisher's values, then all of another's.
  ///
  /// ```swift
  /// let all = Publishers.Concatenate(prefix: [1, 2].publisher, suffix: [3].publisher)
  /// ```
  ///
  /// The downstream gets one subscription, described as `"Concatenate"`. The suffix is
  /// subscribed when the prefix finishes, and the demand the downstream requested but the
  /// prefix did not use is requested from it. A failure of the prefix ends the stream.
  ///
  /// > Thread safety: `request(_:)` and `cancel()` on its subscription are safe from any thread.
  public struct Concatenate<Prefix: Publisher, Suffix: Publisher>: Publisher
  where Prefix.Output == Suffix.Output, Prefix.Failure == Suffix.Failure {
    public typealias Output = Suffix.Output
    public typealias Failure = Suffix.Failure

    /// The publisher whose values come first.
    public let prefix: Prefix

    /// The publisher subscribed once the prefix finishes.
    public let suffix: Suffix

    /// Creates a publisher of `prefix`'s values followed by `suffix`'s values.
    ///
    /// - Parameters:
    ///   - prefix: The publisher whose values come first.
    ///   - suffix: The publisher subscribed once the prefix finishes.
    public init(prefix: Prefix, suffix: Suffix) {
      self.prefix = prefix
      self.suffix = suffix
    }

    @inlinable
    public func receive<S: Subscriber>(subscriber: S)
    where S.Input == Output, S.Failure == Failure {
      let serial = SerialUpstreams(downstream: subscriber, name: "Concatenate")
      let suffix = self.suffix
      let prefix = self.prefix
      serial.hold(suffix)
      serial.run {
        serial.attach(prefix) { completion in
          guard case .finished = completion else { return .complete(completion) }
          return .next {
            serial.attach(suffix) { .complete($0) }
          }
        }
      }
    }
  }
}

extension Publishers.Concatenate: Equatable where Prefix: Equatable, Suffix: Equatable {}

extension Publishers.Concatenate: Sendable where Prefix: Sendable, Suffix: Sendable {}
