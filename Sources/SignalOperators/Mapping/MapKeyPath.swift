public import StreamCore

extension Publisher {
  /// Publishes the value of a key path of each upstream value.
  ///
  /// ```swift
  /// users.map(\.name).sink { print($0) }
  /// ```
  ///
  /// The subscriber gets the upstream's own subscription.
  ///
  /// > Thread safety: A value type; values pass on the upstream's thread.
  ///
  /// - Parameter keyPath: The key path to read from each value.
  /// - Returns: A publisher of the values at `keyPath`.
  @inlinable
  public func map<T>(_ keyPath: KeyPath<Output, T>) -> Publishers.MapKeyPath<Self, T> {
    Publishers.MapKeyPath(upstream: self, keyPath: keyPath)
  }

  /// Publishes the values of two key paths of each upstream value, as a tuple.
  ///
  /// ```swift
  /// users.map(\.name, \.age).sink { name, age in print(name, age) }
  /// ```
  ///
  /// > Thread safety: A value type; values pass on the upstream's thread.
  ///
  /// - Parameters:
  ///   - keyPath0: The key path of the tuple's first element.
  ///   - keyPath1: The key path of the tuple's second element.
  /// - Returns: A publisher of tuples of the values at the key paths.
  @inlinable
  public func map<T0, T1>(
    _ keyPath0: KeyPath<Output, T0>,
    _ keyPath1: KeyPath<Output, T1>
  ) -> Publishers.MapKeyPath2<Self, T0, T1> {
    Publishers.MapKeyPath2(upstream: self, keyPath0: keyPath0, keyPath1: keyPath1)
  }

  /// Publishes the values of three key paths of each upstream value, as a tuple.
  ///
  /// ```swift
  /// users.map(\.name, \.age, \.email).sink { print($0) }
  /// ```
  ///
  /// > Thread safety: A value type; values pass on the upstream's thread.
  ///
  /// - Parameters:
  ///   - keyPath0: The key path of the tuple's first element.
  ///   - keyPath1: The key path of the tuple's second element.
  ///   - keyPath2: The key path of the tuple's third element.
  /// - Returns: A publisher of tuples of the values at the key paths.
  @inlinable
  public func map<T0, T1, T2>(
    _ keyPath0: KeyPath<Output, T0>,
    _ keyPath1: KeyPath<Output, T1>,
    _ keyPath2: KeyPath<Output, T2>
  ) -> Publishers.MapKeyPath3<Self, T0, T1, T2> {
    Publishers.MapKeyPath3(
      upstream: self,
      keyPath0: keyPath0,
      keyPath1: keyPath1,
      keyPath2: keyPath2
    )
  }
}

extension Publishers {
  /// A publisher of the value of a key path of each upstream value.
  ///
  /// ```swift
  /// let names = Publishers.MapKeyPath(upstream: users, keyPath: \.name)
  /// ```
  ///
  /// Made by `Publisher.map(_:)` with a key path. The subscriber it subscribes upstream is
  /// described as `"ValueForKey"`, as in Combine.
  ///
  /// > Thread safety: A value type; the subscriber talks to the upstream's subscription directly.
  public struct MapKeyPath<Upstream: Publisher, Output>: Publisher {
    public typealias Failure = Upstream.Failure

    /// The publisher whose values are read.
    public let upstream: Upstream

    /// The key path read from each value.
    public let keyPath: KeyPath<Upstream.Output, Output>

    /// Creates a publisher of the values at `keyPath`.
    ///
    /// - Parameters:
    ///   - upstream: The publisher whose values are read.
    ///   - keyPath: The key path read from each value.
    @inlinable
    init(upstream: Upstream, keyPath: KeyPath<Upstream.Output, Output>) {
      self.upstream = upstream
      self.keyPath = keyPath
    }

    /// Subscribes `subscriber` to the upstream through a `"ValueForKey"` subscriber.
    ///
    /// - Parameter subscriber: The subscriber to attach.
    @inlinable
    public func receive<S: Subscriber>(subscriber: S)
    where S.Input == Output, S.Failure == Failure {
      let keyPath = self.keyPath
      upstream.receive(
        subscriber: Transforming.KeyPathInner<Upstream.Output, Failure, S>(
          downstream: subscriber,
          name: "ValueForKey",
          keyPaths: [keyPath]
        ) { $0[keyPath: keyPath] }
      )
    }
  }

  /// A publisher of the values of two key paths of each upstream value.
  ///
  /// ```swift
  /// let pairs = Publishers.MapKeyPath2(upstream: users, keyPath0: \.name, keyPath1: \.age)
  /// ```
  ///
  /// See ``StreamCore/Publisher/map(_:_:)``.
  ///
  /// > Thread safety: A value type; the subscriber talks to the upstream's subscription directly.
  public struct MapKeyPath2<Upstream: Publisher, Output0, Output1>: Publisher {
    public typealias Output = (Output0, Output1)
    public typealias Failure = Upstream.Failure

    /// The publisher whose values are read.
    public let upstream: Upstream

    /// The key path of the tuple's first element.
    public let keyPath0: KeyPath<Upstream.Output, Output0>

    /// The key path of the tuple's second element.
    public let keyPath1: KeyPath<Upstream.Output, Output1>

    /// Creates a publisher of tuples of the values at two key paths.
    ///
    /// - Parameters:
    ///   - upstream: The publisher whose values are read.
    ///   - keyPath0: The key path of the tuple's first element.
    ///   - keyPath1: The key path of the tuple's second element.
    @inlinable
    init(
      upstream: Upstream,
      keyPath0: KeyPath<Upstream.Output, Output0>,
      keyPath1: KeyPath<Upstream.Output, Output1>
    ) {
      self.upstream = upstream
      self.keyPath0 = keyPath0
      self.keyPath1 = keyPath1
    }

    /// Subscribes `subscriber` to the upstream through a `"ValueForKeys"` subscriber.
    ///
    /// - Parameter subscriber: The subscriber to attach.
    @inlinable
    public func receive<S: Subscriber>(subscriber: S)
    where S.Input == Output, S.Failure == Failure {
      let (keyPath0, keyPath1) = (self.keyPath0, self.keyPath1)
      upstream.receive(
        subscriber: Transforming.KeyPathInner<Upstream.Output, Failure, S>(
          downstream: subscriber,
          name: "ValueForKeys",
          keyPaths: [keyPath0, keyPath1]
        ) {
          ($0[keyPath: keyPath0], $0[keyPath: keyPath1])
        }
      )
    }
  }

  /// A publisher of the values of three key paths of each upstream value.
  ///
  /// ```swift
  /// let rows = Publishers.MapKeyPath3(
  ///   upstream: users, keyPath0: \.name, keyPath1: \.age, keyPath2: \.email)
  /// ```
  ///
  /// See ``StreamCore/Publisher/map(_:_:_:)``.
  ///
  /// > Thread safety: A value type; the subscriber talks to the upstream's subscription directly.
  public struct MapKeyPath3<Upstream: Publisher, Output0, Output1, Output2>: Publisher {
    public typealias Output = (Output0, Output1, Output2)
    public typealias Failure = Upstream.Failure

    /// The publisher whose values are read.
    public let upstream: Upstream

    /// The key path of the tuple's first element.
    public let keyPath0: KeyPath<Upstream.Output, Output0>

    /// The key path of the tuple's second element.
    public let keyPath1: KeyPath<Upstream.Output, Output1>

    /// The key path of the tuple's third element.
    public let keyPath2: KeyPath<Upstream.Output, Output2>

    /// Creates a publisher of tuples of the values at three key paths.
    ///
    /// - Parameters:
    ///   - upstream: The publisher whose values are read.
    ///   - keyPath0: The key path of the tuple's first element.
    ///   - keyPath1: The key path of the tuple's second element.
    ///   - keyPath2: The key path of the tuple's third element.
    @inlinable
    init(
      upstream: Upstream,
      keyPath0: KeyPath<Upstream.Output, Output0>,
      keyPath1: KeyPath<Upstream.Output, Output1>,
      keyPath2: KeyPath<Upstream.Output, Output2>
    ) {
      self.upstream = upstream
      self.keyPath0 = keyPath0
      self.keyPath1 = keyPath1
      self.keyPath2 = keyPath2
    }

    /// Subscribes `subscriber` to the upstream through a `"ValueForKeys"` subscriber.
    ///
    /// - Parameter subscriber: The subscriber to attach.
    @inlinable
    public func receive<S: Subscriber>(subscriber: S)
    where S.Input == Output, S.Failure == Failure {
      let (keyPath0, keyPath1, keyPath2) = (self.keyPath0, self.keyPath1, self.keyPath2)
      upstream.receive(
        subscriber: Transforming.KeyPathInner<Upstream.Output, Failure, S>(
          downstream: subscriber,
          name: "ValueForKeys",
          keyPaths: [keyPath0, keyPath1, keyPath2]
        ) {
          ($0[keyPath: keyPath0], $0[keyPath: keyPath1], $0[keyPath: keyPath2])
        }
      )
    }
  }
}

extension Transforming {
  /// The subscriber of the key-path maps: reads the key paths of each value and hands the
  /// upstream's subscription on as is.
  @usableFromInline
  struct KeyPathInner<Input, Failure: Error, Downstream: Subscriber>: Subscriber,
    CustomStringConvertible, CustomPlaygroundDisplayConvertible, CustomReflectable
  where Downstream.Failure == Failure {
    @usableFromInline
    let downstream: Downstream

    @usableFromInline
    let read: (Input) -> Downstream.Input

    @usableFromInline
    let description: String

    /// The key paths read, for the mirror.
    @usableFromInline
    let keyPaths: [AnyKeyPath]

    @usableFromInline
    let combineIdentifier = CombineIdentifier()

    @inlinable
    init(
      downstream: Downstream,
      name: String,
      keyPaths: [AnyKeyPath],
      read: @escaping (Input) -> Downstream.Input
    ) {
      self.downstream = downstream
      self.description = name
      self.keyPaths = keyPaths
      self.read = read
    }

    @inlinable
    func receive(subscription: any Subscription) {
      downstream.receive(subscription: subscription)
    }

    @inlinable
    func receive(_ input: Input) -> Subscribers.Demand {
      downstream.receive(read(input))
    }

    @inlinable
    func receive(completion: Subscribers.Completion<Failure>) {
      downstream.receive(completion: completion)
    }

    @usableFromInline
    var playgroundDescription: Any { description }

    /// The key path (`keyPath`), or the key paths (`keyPath0`, …), as Combine's mirror shows.
    @usableFromInline
    var customMirror: Mirror {
      let children: [Mirror.Child] =
        keyPaths.count == 1
        ? [("keyPath", keyPaths[0])]
        : keyPaths.enumerated().map { ("keyPath\($0.offset)", $0.element) }
      return Mirror(self, children: children)
    }
  }
}
