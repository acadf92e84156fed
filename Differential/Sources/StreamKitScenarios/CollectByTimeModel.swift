// The reference model of `collect(.byTime…)`/`collect(.byTimeOrCount…)`, which OpenCombine lacks.
// Compiled twice, like Scenarios.swift (Sources/OpenCombineScenarios/CollectByTimeModel.swift is a
// symlink to this file); only the OpenCombine side subscribes it, in place of the operator. It
// runs on the scenarios' `VirtualScheduler` (TimeScenarios.swift).
//
// What it follows (README.md, "Reference models", lists the decisions where nothing says):
//   - Apple's documentation of `collect(_:options:)`: "At the end of each scheduled interval, the
//     publisher sends an array that contains the items it collected"; `byTimeOrCount` also
//     publishes "when a buffer reaches a maximum size"; "If the upstream publisher finishes
//     before filling the buffer, the publisher sends an array that contains items it received";
//     on a failure it "forwards the error to the downstream receiver instead of sending its
//     output"; "When this publisher receives a request for .max(n) elements, it requests
//     .max(count * n) from the upstream publisher".
//   - Combine's behaviour as the compatibility specs of CombineX (cx-org/CombineX,
//     CollectByTimeSpec and VersioningCollectByTimeSpec, run against Combine) record it: the
//     timer's intervals are counted from the subscription and a full group does not restart
//     them; a group is sent at a tick only if the subscriber has demand; since macOS 10.15.2 a
//     full group, the last group with `.finished`, and a failure are each sent from an action
//     scheduled on the scheduler (not from inside the upstream's call); the demand a full group's
//     `receive(_:)` returns is requested upstream (times `count`), while the demand a group sent
//     at a tick returns counts for the subscriber only (nothing goes upstream for it); a
//     failure drops what was collected; `byTime` asks the upstream for one value at each
//     downstream request and returns `.max(1)` from each value ("should always request 1 when
//     strategy is by time").

import DiffModel

#if OPENCOMBINE
import OpenCombine
#else
import SignalOperators
import StreamCore
#endif

/// `collect(.byTime(scheduler, interval))` (`count == nil`) or
/// `collect(.byTimeOrCount(scheduler, interval, count))` as documented; see the file's header.
struct ModelCollectByTime<Upstream: Publisher>: Publisher {
  typealias Output = [Upstream.Output]
  typealias Failure = Upstream.Failure
  let upstream: Upstream
  let scheduler: VirtualScheduler
  let interval: VirtualStride
  let count: Int?

  func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
    upstream.subscribe(
      ModelCollectByTimeSubscription(
        downstream: AnySubscriber(subscriber),
        scheduler: scheduler,
        interval: interval,
        count: count
      )
    )
  }
}

final class ModelCollectByTimeSubscription<Value, Failure: Error>: Subscriber, Subscription {
  typealias Input = Value
  let scheduler: VirtualScheduler
  let interval: VirtualStride
  let count: Int?
  /// `nil` once the subscription ended (the completion went down, or the subscriber cancelled).
  var downstream: AnySubscriber<[Value], Failure>?
  /// `nil` before the subscription, and once the upstream completed or was cancelled.
  var upstream: (any Subscription)?
  var subscribed = false
  var timer: (any Cancellable)?
  var demand: Subscribers.Demand = .none
  /// The group being collected.
  var group: [Value] = []
  /// Groups cut and not yet sent, oldest first.
  var ready: [[Value]] = []
  /// The upstream's completion, once it came; it goes down after the ready groups.
  var completion: Subscribers.Completion<Failure>?
  var drainScheduled = false
  var delivering = false

  init(
    downstream: AnySubscriber<[Value], Failure>,
    scheduler: VirtualScheduler,
    interval: VirtualStride,
    count: Int?
  ) {
    self.downstream = downstream
    self.scheduler = scheduler
    self.interval = interval
    self.count = count
  }

  // MARK: From upstream

  func receive(subscription: any Subscription) {
    guard let downstream, !subscribed else {
      subscription.cancel()
      return
    }
    subscribed = true
    upstream = subscription
    downstream.receive(subscription: self)
    guard self.downstream != nil else { return }
    timer = scheduler.schedule(
      after: scheduler.now.advanced(by: interval),
      interval: interval,
      tolerance: 0,
      options: nil
    ) { [weak self] in self?.tick() }
  }

  func receive(_ input: Value) -> Subscribers.Demand {
    guard downstream != nil, completion == nil else { return .none }
    group.append(input)
    if let count, group.count >= count {
      ready.append(group)
      group = []
      scheduleDrain()
    }
    // `byTime` asks for one value at a time (CombineX's "should always request 1 when strategy
    // is by time", run against Combine).
    return count == nil ? .max(1) : .none
  }

  func receive(completion: Subscribers.Completion<Failure>) {
    guard downstream != nil, self.completion == nil else { return }
    timer?.cancel()
    timer = nil
    upstream = nil
    switch completion {
    case .finished:
      if !group.isEmpty { ready.append(group) }
    case .failure:
      ready = []
    }
    group = []
    self.completion = completion
    scheduleDrain()
  }

  // MARK: From downstream

  func request(_ d: Subscribers.Demand) {
    guard downstream != nil else { return }
    demand += d
    upstream?.request(count.map { d * $0 } ?? .max(1))
    if !ready.isEmpty || completion != nil { scheduleDrain() }
  }

  func cancel() {
    guard downstream != nil else { return }
    downstream = nil
    ready = []
    group = []
    completion = nil
    timer?.cancel()
    timer = nil
    let up = upstream
    upstream = nil
    up?.cancel()
  }

  // MARK: Sending

  /// An interval ended: the group goes down if the subscriber has demand beyond the groups
  /// already waiting; what it returns counts for the subscriber only.
  func tick() {
    guard downstream != nil, completion == nil, !group.isEmpty, demand > .max(ready.count)
    else { return }
    ready.append(group)
    group = []
    drain(forwarding: false)
  }

  func scheduleDrain() {
    guard !drainScheduled else { return }
    drainScheduled = true
    scheduler.schedule(options: nil) { [self] in
      drainScheduled = false
      drain(forwarding: true)
    }
  }

  /// Sends the ready groups within the demand, then the completion once none is left.
  func drain(forwarding: Bool) {
    guard !delivering else { return }
    delivering = true
    defer { delivering = false }
    while let downstream, demand > 0, !ready.isEmpty {
      demand -= 1
      let more = downstream.receive(ready.removeFirst())
      guard self.downstream != nil else { return }
      guard more > 0 else { continue }
      demand += more
      if forwarding, let count { upstream?.request(more * count) }
    }
    if let downstream, ready.isEmpty, let completion {
      self.downstream = nil
      downstream.receive(completion: completion)
    }
  }
}
