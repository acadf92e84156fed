import Dispatch
import Observation
import StreamCore

/// A model with two tracked properties and one the macro leaves untracked.
@Observable final class Counter {
  var count = 0
  var label = ""
  @ObservationIgnored var untracked = 0

  init(count: Int = 0) {
    self.count = count
  }
}

/// Carries a value into a `@Sendable` closure. Each use says why the value isn't touched from
/// two threads at once (in these tests: the other thread runs while the test thread waits).
struct Handed<Value>: @unchecked Sendable {
  let value: Value
}

/// A scheduler on a serial queue that changes `model.count` after each action it runs: every
/// read the publisher makes is followed by a change, so the publisher has a new value for each
/// unit of demand, as the conformance kit needs of a publisher that never finishes.
// Sendable: `model` is touched only on `queue`, by the publisher's reads and by the change.
final class ChangingScheduler: Scheduler, @unchecked Sendable {
  typealias SchedulerTimeType = DispatchQueue.SchedulerTimeType
  typealias SchedulerOptions = DispatchQueue.SchedulerOptions

  let model = Counter()
  private let queue = DispatchQueue(label: "ChangingScheduler")

  var now: SchedulerTimeType { queue.now }
  var minimumTolerance: SchedulerTimeType.Stride { queue.minimumTolerance }

  func schedule(options: SchedulerOptions?, _ action: @escaping @Sendable () -> Void) {
    queue.async {
      action()
      self.model.count += 1
    }
  }

  func schedule(
    after date: SchedulerTimeType,
    tolerance: SchedulerTimeType.Stride,
    options: SchedulerOptions?,
    _ action: @escaping @Sendable () -> Void
  ) {
    queue.schedule(after: date, tolerance: tolerance, options: options, action)
  }

  func schedule(
    after date: SchedulerTimeType,
    interval: SchedulerTimeType.Stride,
    tolerance: SchedulerTimeType.Stride,
    options: SchedulerOptions?,
    _ action: @escaping @Sendable () -> Void
  ) -> any Cancellable {
    queue.schedule(after: date, interval: interval, tolerance: tolerance, options: options, action)
  }
}
