import StreamCore
import StreamTesting

/// The options a ``SpyScheduler`` is given; the tag tells calls apart.
struct SpyOptions: Equatable, Sendable {
  let tag: Int
}

/// A `TestScheduler` that records the tolerance and options of every call it gets, so tests can
/// see that an operator forwards the ones it was given.
final class SpyScheduler: Scheduler, Sendable {
  typealias SchedulerTimeType = VirtualTime
  typealias SchedulerOptions = SpyOptions

  /// One call: which `schedule` it was, and the tolerance (`nil` for the immediate one) and
  /// options it carried.
  struct Call: Equatable, Sendable {
    enum Kind: Equatable, Sendable {
      case now
      case after
      case repeating
    }

    let kind: Kind
    let tolerance: VirtualTime.Stride?
    let options: SpyOptions?
  }

  /// Runs the actions; advance it to make time pass.
  let base = TestScheduler()
  private let recorded = LockedState<[Call]>([])

  /// Every call, in order.
  var calls: [Call] {
    recorded.withLock { $0 }
  }

  /// How many times `now` was read.
  var clockReads: Int {
    reads.withLock { $0 }
  }
  private let reads = LockedState(0)

  var now: VirtualTime {
    reads.withLock { $0 += 1 }
    return base.now
  }

  /// Not zero, so a forwarded minimum tolerance is told apart from a default.
  var minimumTolerance: VirtualTime.Stride { 2 }

  func schedule(options: SpyOptions?, _ action: @escaping @Sendable () -> Void) {
    recorded.withLock { $0.append(Call(kind: .now, tolerance: nil, options: options)) }
    base.schedule(options: nil, action)
  }

  func schedule(
    after date: VirtualTime,
    tolerance: VirtualTime.Stride,
    options: SpyOptions?,
    _ action: @escaping @Sendable () -> Void
  ) {
    recorded.withLock { $0.append(Call(kind: .after, tolerance: tolerance, options: options)) }
    base.schedule(after: date, tolerance: tolerance, options: nil, action)
  }

  func schedule(
    after date: VirtualTime,
    interval: VirtualTime.Stride,
    tolerance: VirtualTime.Stride,
    options: SpyOptions?,
    _ action: @escaping @Sendable () -> Void
  ) -> any Cancellable {
    recorded.withLock { $0.append(Call(kind: .repeating, tolerance: tolerance, options: options)) }
    return base.schedule(
      after: date,
      interval: interval,
      tolerance: tolerance,
      options: nil,
      action
    )
  }
}
