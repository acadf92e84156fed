import StreamCore
import StreamTesting

/// Subscribes a fresh recorder to `publisher` and returns it.
func specializedRecord<P: Publisher>(
  _ publisher: P,
  initialDemand: Subscribers.Demand? = .unlimited
) -> RecordingSubscriber<P.Output, P.Failure> {
  let recorder = RecordingSubscriber<P.Output, P.Failure>(initialDemand: initialDemand)
  publisher.subscribe(recorder)
  return recorder
}

/// The values `publisher` sends to a subscriber with unlimited demand, and whether it finished
/// (`true`) or failed (`false`); `nil` if it never completed.
func specializedOutcome<P: Publisher>(_ publisher: P) -> (values: [P.Output], finished: Bool?) {
  let recorder = specializedRecord(publisher)
  switch recorder.completion {
  case .finished: return (recorder.values, true)
  case .failure: return (recorder.values, false)
  case nil: return (recorder.values, nil)
  }
}

/// The `TestError` that `publisher` fails with, or `nil` if it doesn't fail with one.
func specializedThrown<P: Publisher>(_ publisher: P) -> TestError? {
  let recorder = specializedRecord(publisher)
  guard case .failure(let error) = recorder.completion else { return nil }
  return error as? TestError
}
