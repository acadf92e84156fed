import StreamCore
import Synchronization

/// A subscriber for merge tests: records values and completions, flags overlapping deliveries
/// through an atomic "in delivery" flag, and lets a test act from inside `receive(_:)`.
// Sendable: the recorded state is guarded by `lock`; the flags are atomic; `onValue` is set
// before subscribing and only read afterwards.
final class MergeProbe<Input: Sendable, Failure: Error>: @unchecked Sendable, Subscriber {
  private let lock = Lock()
  private var recordedValues: [Input] = []
  private var recordedCompletions: [Subscribers.Completion<Failure>] = []
  private var recordedSubscription: (any Subscription)?
  private var valuesAfterEnd = 0
  private var ended = false
  private let inDelivery = Atomic<Bool>(false)
  private let overlapCount = Atomic<Int>(0)
  private let initialDemand: Subscribers.Demand
  /// Returns the demand to give back for a value; may call `subscription` from inside.
  var onValue: (Input) -> Subscribers.Demand = { _ in .none }

  init(initialDemand: Subscribers.Demand) {
    self.initialDemand = initialDemand
  }

  var values: [Input] { lock.withLock { recordedValues } }
  var completions: [Subscribers.Completion<Failure>] { lock.withLock { recordedCompletions } }
  var subscription: (any Subscription)? { lock.withLock { recordedSubscription } }
  /// Deliveries that began while another was under way.
  var overlaps: Int { overlapCount.load(ordering: .relaxed) }
  /// Values that arrived after the completion or after `cancel()`.
  var lateValues: Int { lock.withLock { valuesAfterEnd } }

  func receive(subscription: any Subscription) {
    lock.withLock { recordedSubscription = subscription }
    if initialDemand > .none { subscription.request(initialDemand) }
  }

  func receive(_ input: Input) -> Subscribers.Demand {
    if inDelivery.exchange(true, ordering: .acquiring) {
      overlapCount.add(1, ordering: .relaxed)
    }
    lock.withLock {
      if ended { valuesAfterEnd += 1 }
      recordedValues.append(input)
    }
    let more = onValue(input)
    inDelivery.store(false, ordering: .releasing)
    return more
  }

  func receive(completion: Subscribers.Completion<Failure>) {
    if inDelivery.exchange(true, ordering: .acquiring) {
      overlapCount.add(1, ordering: .relaxed)
    }
    let released = lock.withLock { () -> (any Subscription)? in
      recordedCompletions.append(completion)
      ended = true
      return recordedSubscription.take()
    }
    _ = released
    inDelivery.store(false, ordering: .releasing)
  }

  /// Cancels the subscription; values that arrive after `cancel()` returned count as late.
  func cancel() {
    let subscription = lock.withLock { recordedSubscription.take() }
    subscription?.cancel()
    lock.withLock { ended = true }
  }
}
