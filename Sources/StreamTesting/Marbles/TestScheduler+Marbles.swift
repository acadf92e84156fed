import StreamCore

extension TestScheduler where SchedulerTimeType == VirtualTime, SchedulerOptions == Never {
  /// The length of one marble frame, one character of a marble line; one tick by default.
  ///
  /// ```swift
  /// let scheduler = TestScheduler()
  /// scheduler.marbleFrame = .milliseconds(100)
  /// let input = scheduler.hot("-a-b|")  // a at 100 ms, b at 300 ms
  /// ```
  ///
  /// Set it before making marble publishers: each keeps the frame it was made with, and the
  /// expectations use the one set when they run. With the default, a frame is one tick, so an
  /// operator's integer stride counts frames: `debounce(for: 2, scheduler:)` waits two.
  public var marbleFrame: VirtualTime.Stride {
    get { VirtualTime.Stride(marbleRegistry.frameTicks) }
    set { marbleRegistry.frameTicks = Swift.max(newValue.magnitude, 1) }
  }

  /// Makes a hot publisher of the characters of a marble line.
  ///
  /// ```swift
  /// let clicks = scheduler.hot("--a--b--|")
  /// ```
  ///
  /// Frame 0 is ``now``, or the `^` in the line; each character stands for itself as a
  /// `String`. See ``MarblePublisher``.
  ///
  /// > Thread safety: May be called from any thread.
  ///
  /// - Parameter marbles: The marble line.
  /// - Returns: A publisher that sends on this scheduler what the line says.
  public func hot(_ marbles: String) -> MarblePublisher<String, Never> {
    MarblePublisher(marbles: marbles, values: [:], error: nil, isHot: true, scheduler: self)
  }

  /// Makes a hot publisher of the values a marble line's characters stand for.
  ///
  /// ```swift
  /// let prices = scheduler.hot("-a--b-|", values: ["a": 10, "b": 12])
  /// ```
  ///
  /// > Thread safety: May be called from any thread.
  ///
  /// - Parameters:
  ///   - marbles: The marble line.
  ///   - values: The value each character stands for.
  /// - Returns: A publisher that sends on this scheduler what the line says.
  public func hot<Output>(
    _ marbles: String,
    values: [Character: Output]
  ) -> MarblePublisher<
    Output, Never
  > {
    MarblePublisher(marbles: marbles, values: values, error: nil, isHot: true, scheduler: self)
  }

  /// Makes a hot publisher of a marble line's characters, whose `#` fails with `error`.
  ///
  /// ```swift
  /// let feed = scheduler.hot("-a-b-#", error: FeedError.offline)
  /// ```
  ///
  /// > Thread safety: May be called from any thread.
  ///
  /// - Parameters:
  ///   - marbles: The marble line.
  ///   - error: The error `#` stands for; it also sets the publisher's `Failure` type.
  /// - Returns: A publisher that sends on this scheduler what the line says.
  public func hot<Failure: Error>(
    _ marbles: String,
    error: Failure
  ) -> MarblePublisher<
    String, Failure
  > {
    MarblePublisher(marbles: marbles, values: [:], error: error, isHot: true, scheduler: self)
  }

  /// Makes a hot publisher of the values a marble line's characters stand for, whose `#` fails
  /// with `error`.
  ///
  /// ```swift
  /// let prices = scheduler.hot("-a-#", values: ["a": 10], error: FeedError.offline)
  /// ```
  ///
  /// > Thread safety: May be called from any thread.
  ///
  /// - Parameters:
  ///   - marbles: The marble line.
  ///   - values: The value each character stands for.
  ///   - error: The error `#` stands for; it also sets the publisher's `Failure` type.
  /// - Returns: A publisher that sends on this scheduler what the line says.
  public func hot<Output, Failure: Error>(
    _ marbles: String,
    values: [Character: Output],
    error: Failure
  ) -> MarblePublisher<Output, Failure> {
    MarblePublisher(marbles: marbles, values: values, error: error, isHot: true, scheduler: self)
  }

  /// Makes a cold publisher of the characters of a marble line: each subscriber gets the line
  /// from its start, starting when it subscribes.
  ///
  /// ```swift
  /// let request = scheduler.cold("---(a|)")
  /// ```
  ///
  /// See ``MarblePublisher``.
  ///
  /// > Thread safety: May be called from any thread.
  ///
  /// - Parameter marbles: The marble line; it has no `^`.
  /// - Returns: A publisher that sends on this scheduler what the line says.
  public func cold(_ marbles: String) -> MarblePublisher<String, Never> {
    MarblePublisher(marbles: marbles, values: [:], error: nil, isHot: false, scheduler: self)
  }

  /// Makes a cold publisher of the values a marble line's characters stand for.
  ///
  /// ```swift
  /// let page = scheduler.cold("--(a|)", values: ["a": [1, 2, 3]])
  /// ```
  ///
  /// > Thread safety: May be called from any thread.
  ///
  /// - Parameters:
  ///   - marbles: The marble line; it has no `^`.
  ///   - values: The value each character stands for.
  /// - Returns: A publisher that sends on this scheduler what the line says.
  public func cold<Output>(
    _ marbles: String,
    values: [Character: Output]
  ) -> MarblePublisher<
    Output, Never
  > {
    MarblePublisher(marbles: marbles, values: values, error: nil, isHot: false, scheduler: self)
  }

  /// Makes a cold publisher of a marble line's characters, whose `#` fails with `error`.
  ///
  /// ```swift
  /// let flaky = scheduler.cold("-a-#", error: FeedError.offline)
  /// ```
  ///
  /// > Thread safety: May be called from any thread.
  ///
  /// - Parameters:
  ///   - marbles: The marble line; it has no `^`.
  ///   - error: The error `#` stands for; it also sets the publisher's `Failure` type.
  /// - Returns: A publisher that sends on this scheduler what the line says.
  public func cold<Failure: Error>(
    _ marbles: String,
    error: Failure
  ) -> MarblePublisher<
    String, Failure
  > {
    MarblePublisher(marbles: marbles, values: [:], error: error, isHot: false, scheduler: self)
  }

  /// Makes a cold publisher of the values a marble line's characters stand for, whose `#`
  /// fails with `error`.
  ///
  /// ```swift
  /// let flaky = scheduler.cold("-a-#", values: ["a": 1], error: FeedError.offline)
  /// ```
  ///
  /// > Thread safety: May be called from any thread.
  ///
  /// - Parameters:
  ///   - marbles: The marble line; it has no `^`.
  ///   - values: The value each character stands for.
  ///   - error: The error `#` stands for; it also sets the publisher's `Failure` type.
  /// - Returns: A publisher that sends on this scheduler what the line says.
  public func cold<Output, Failure: Error>(
    _ marbles: String,
    values: [Character: Output],
    error: Failure
  ) -> MarblePublisher<Output, Failure> {
    MarblePublisher(marbles: marbles, values: values, error: error, isHot: false, scheduler: self)
  }
}
