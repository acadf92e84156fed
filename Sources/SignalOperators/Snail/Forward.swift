public import StreamCore

extension Publisher {
  /// Sends every value and the completion into `subject`, like Snail's `forward(to:)`; this is
  /// Combine's `subscribe(_:)` for a subject.
  ///
  /// ```swift
  /// let token = userUpdated.forward(to: allUserEvents)
  /// ```
  ///
  /// It requests `.unlimited`. Keep the returned token: cancelling or deinitialising it stops
  /// the forwarding. Unlike Snail, a terminal event ends only this forwarding if the subject has
  /// other sources still sending; the subject itself follows Combine's rules and ends for good.
  ///
  /// > Thread safety: The same as `subscribe(_:)` with a subject.
  ///
  /// - Parameter subject: The subject that receives the events.
  /// - Returns: A token that stops the forwarding when cancelled or deinitialised.
  public func forward<S: Subject>(to subject: S) -> AnyCancellable
  where S.Output == Output, S.Failure == Failure {
    subscribe(subject)
  }
}
