public import StreamCombineExt

/// Snail's name for a replaying subject with untyped errors.
///
/// ```swift
/// let replay = Replay<Int>(bufferSize: 5)  // Snail: Replay<Int>(5)
/// ```
public typealias Replay<Output> = ReplaySubject<Output, any Error>

extension ReplaySubject {
  /// Creates a subject that replays up to `threshold` values, spelled as Snail's
  /// `Replay(_ threshold:)`.
  ///
  /// ```swift
  /// let scores = Replay<Int>(2)  // the same as Replay<Int>(bufferSize: 2)
  /// ```
  ///
  /// - Parameter threshold: How many of the latest values to keep; `0` keeps none.
  public convenience init(_ threshold: Int) {
    self.init(bufferSize: threshold)
  }
}
