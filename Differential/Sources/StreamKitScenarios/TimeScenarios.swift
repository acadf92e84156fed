// The time operators' scenarios and the one virtual-time scheduler both libraries run on.
// Compiled twice, like Scenarios.swift: Sources/OpenCombineScenarios/TimeScenarios.swift is a
// symlink to this file, and `VirtualScheduler` conforms to whichever `Scheduler` is imported.
//
// Virtual time moves only on a script's `tN` step (`Step.advance`): the scheduler then runs, in
// order of due time and, for equal due times, in the order they were scheduled, every action due
// by `now + N`. `schedule(options:_:)` never runs the action at once: it is due `now` and runs on
// the next advance (`t0` runs just what is due now). The scheduler notes every schedule, run and
// cancel in the trace as `S sched.…` lines: shown side by side in reports, but in no compared
// channel (how often an operator calls its scheduler is its own business; what reaches the
// subscribers, and when, is compared).

import DiffModel

#if OPENCOMBINE
import OpenCombine
#else
import SignalOperators
import StreamCore
#endif

// MARK: - Virtual time

/// An instant of virtual time, in ticks since the scenario started.
struct VirtualTime: Strideable, Hashable, CustomStringConvertible {
  var ticks: Int
  func distance(to other: VirtualTime) -> VirtualStride { VirtualStride(other.ticks - ticks) }
  func advanced(by n: VirtualStride) -> VirtualTime { VirtualTime(ticks: ticks + n.ticks) }
  var description: String { "@\(ticks)" }
}

/// A span of virtual time in ticks. One tick stands for one second in the conversions (an
/// operator that converts a sub-second interval gets it rounded down to whole ticks).
struct VirtualStride: SchedulerTimeIntervalConvertible, Comparable, SignedNumeric, Hashable,
  ExpressibleByIntegerLiteral, CustomStringConvertible
{
  var ticks: Int
  init(_ ticks: Int) { self.ticks = ticks }
  init(integerLiteral value: Int) { ticks = value }
  init?<T: BinaryInteger>(exactly source: T) {
    guard let n = Int(exactly: source) else { return nil }
    ticks = n
  }
  var magnitude: Int { abs(ticks) }
  var description: String { "\(ticks)t" }

  static func < (a: Self, b: Self) -> Bool { a.ticks < b.ticks }
  static func + (a: Self, b: Self) -> Self { Self(a.ticks + b.ticks) }
  static func - (a: Self, b: Self) -> Self { Self(a.ticks - b.ticks) }
  static func * (a: Self, b: Self) -> Self { Self(a.ticks * b.ticks) }
  static func += (a: inout Self, b: Self) { a.ticks += b.ticks }
  static func -= (a: inout Self, b: Self) { a.ticks -= b.ticks }
  static func *= (a: inout Self, b: Self) { a.ticks *= b.ticks }

  static func seconds(_ s: Int) -> Self { Self(s) }
  static func seconds(_ s: Double) -> Self { Self(Int(s.rounded(.down))) }
  static func milliseconds(_ ms: Int) -> Self { Self(ms / 1_000) }
  static func microseconds(_ us: Int) -> Self { Self(us / 1_000_000) }
  static func nanoseconds(_ ns: Int) -> Self { Self(ns / 1_000_000_000) }
}

/// The scenarios' virtual-time scheduler (one per scenario, shared by nothing else).
final class VirtualScheduler: Scheduler, @unchecked Sendable {
  typealias SchedulerTimeType = VirtualTime
  typealias SchedulerOptions = Never

  private struct Entry {
    let due: VirtualTime
    let number: Int
    let interval: VirtualStride?
    let action: () -> Void
  }

  unowned let world: World
  private(set) var now = VirtualTime(ticks: 0)
  private var entries: [Entry] = []
  private var scheduled = 0

  init(world: World) { self.world = world }

  var minimumTolerance: VirtualStride { 0 }

  private func add(
    _ due: VirtualTime,
    interval: VirtualStride?,
    _ action: @escaping () -> Void
  )
    -> Int
  {
    scheduled += 1
    entries.append(Entry(due: due, number: scheduled, interval: interval, action: action))
    return scheduled
  }

  func schedule(options: Never?, _ action: @escaping () -> Void) {
    let n = add(now, interval: nil, action)
    world.note("sched.schedule #\(n) now")
  }

  func schedule(
    after date: VirtualTime,
    tolerance: VirtualStride,
    options: Never?,
    _ action: @escaping () -> Void
  ) {
    let n = add(date, interval: nil, action)
    world.note("sched.schedule #\(n) at \(date) (now \(now))")
  }

  func schedule(
    after date: VirtualTime,
    interval: VirtualStride,
    tolerance: VirtualStride,
    options: Never?,
    _ action: @escaping () -> Void
  ) -> any Cancellable {
    let n = add(date, interval: interval, action)
    world.note("sched.schedule #\(n) at \(date) every \(interval) (now \(now))")
    return RepeatCancel { [weak self] in
      guard let self else { return }
      self.world.note("sched.cancel #\(n)")
      self.entries.removeAll { $0.number == n }
    }
  }

  /// Moves `now` forward by `ticks`, running every action due by then (also those that actions
  /// schedule for an instant it reaches), earliest first, equal due times in scheduling order.
  func advance(_ ticks: Int) {
    let target = now.advanced(by: VirtualStride(ticks))
    world.log(.events, "clock t\(ticks) to \(target)")
    while let i = entries.indices.filter({ entries[$0].due <= target }).min(by: {
      (entries[$0].due.ticks, entries[$0].number) < (entries[$1].due.ticks, entries[$1].number)
    }) {
      let entry = entries.remove(at: i)
      if entry.due > now { now = entry.due }
      if let interval = entry.interval {
        // A repeating action is rescheduled under the same number before it runs.
        entries.append(
          Entry(
            due: entry.due.advanced(by: max(interval, 1)),
            number: entry.number,
            interval: interval,
            action: entry.action
          )
        )
      }
      world.note("sched.run #\(entry.number) at \(now)")
      entry.action()
    }
    now = target
  }
}

/// What `schedule(after:interval:…)` returns.
final class RepeatCancel: Cancellable {
  let onCancel: () -> Void
  init(_ onCancel: @escaping () -> Void) { self.onCancel = onCancel }
  func cancel() { onCancel() }
}

extension World {
  /// A line for the reports that no channel compares (the scheduler's log).
  func note(_ line: String) {
    guard !done else { return }
    emit("S " + line)
  }
}

// MARK: - The time operators

extension Scenarios {
  /// Every operator the oracle covers, with its shape for the generator.
  public static let operators: [OperatorShape] = untimedOperators + timeOperators

  /// The time operators, each on the scenario's virtual-time scheduler.
  static let timeOperators: [OperatorShape] = [
    .init("debounce", timed: true),
    .init("throttle(latest:true)", timed: true),
    .init("throttle(latest:false)", timed: true),
    .init("delay", timed: true),
    .init("timeout", timed: true),
    .init("timeout(customError:)", timed: true),
    .init("measureInterval", timed: true),
    .init("receive(on:virtual)", timed: true),
    .init("subscribe(on:virtual)", timed: true),
    // Reference model on the OpenCombine side (CollectByTimeModel.swift): no misbehaving
    // upstreams, since nothing documents Combine's reaction to them here.
    .init("collect(.byTime)", misbehaviour: false, timed: true),
    .init("collect(.byTimeOrCount)", misbehaviour: false, timed: true),
  ]

  /// Builds a time operator's scenario; false for an operator that isn't one.
  static func buildTime(_ op: String, _ w: World) -> Bool {
    let up = w.ints()
    let s = VirtualScheduler(world: w)
    w.advance = { s.advance($0) }
    switch op {
    case "debounce": w.subscribe(up.debounce(for: 2, scheduler: s))
    case "throttle(latest:true)": w.subscribe(up.throttle(for: 2, scheduler: s, latest: true))
    case "throttle(latest:false)": w.subscribe(up.throttle(for: 2, scheduler: s, latest: false))
    case "delay": w.subscribe(up.delay(for: 2, scheduler: s))
    case "timeout": w.subscribe(up.timeout(3, scheduler: s))
    case "timeout(customError:)":
      let t = w.makeToken()
      w.subscribe(
        up.timeout(3, scheduler: s) {
          t.touch()
          return TestError(code: 8)
        }
      )
    case "measureInterval": w.subscribe(up.measureInterval(using: s))
    case "receive(on:virtual)": w.subscribe(up.receive(on: s))
    case "subscribe(on:virtual)": w.subscribe(up.subscribe(on: s))
    case "collect(.byTime)":
      #if OPENCOMBINE
      w.subscribe(ModelCollectByTime(upstream: up, scheduler: s, interval: 2, count: nil))
      #else
      w.subscribe(up.collect(.byTime(s, 2)))
      #endif
    case "collect(.byTimeOrCount)":
      #if OPENCOMBINE
      w.subscribe(ModelCollectByTime(upstream: up, scheduler: s, interval: 2, count: 2))
      #else
      w.subscribe(up.collect(.byTimeOrCount(s, 2, 2)))
      #endif
    default:
      w.advance = nil
      return false
    }
    return true
  }
}
