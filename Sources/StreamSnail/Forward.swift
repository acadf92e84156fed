import PropertyWrappers
import SignalOperators
public import StreamCore

extension Publisher {
  /// Sends every value and the completion into `subject`, like Snail's `forward(to:)`.
  ///
  /// ```swift
  /// userUpdated.forward(to: allUserEvents)
  /// ```
  ///
  /// It requests `.unlimited` and sends each event into `subject` on the sending thread. As in
  /// Snail, the forwarding lives until this publisher completes (its completion is forwarded
  /// too, which ends `subject`, as subjects do) or until the returned subscription is disposed;
  /// the publisher holds it, so the result may be ignored, as Snail's `forward(to:)` returned
  /// nothing. The forwarding holds `subject` strongly until it ends.
  ///
  /// > Thread safety: The publisher may send from any thread; dispose from any thread.
  ///
  /// - Parameter subject: The subject that receives the events.
  /// - Returns: The forwarding's subscription, to dispose of or add to a ``Disposer``; dropping
  ///   it does not stop the forwarding.
  @discardableResult
  public func forward<S: Subject>(to subject: S) -> SnailSubscription
  where S.Output == Output, S.Failure == Failure {
    subscribe(
      queue: nil,
      onNext: { subject.send($0) },
      onError: { subject.send(completion: .failure($0)) },
      onDone: { subject.send(completion: .finished) }
    )
  }
}
