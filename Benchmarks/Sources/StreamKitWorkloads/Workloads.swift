// The benchmark workloads, written once and compiled twice:
//   - as module `StreamKitWorkloads` against StreamKit's `StreamCore`, and
//   - as module `OpenCombineWorkloads` against OpenCombine (with `OPENCOMBINE` defined);
//     Sources/OpenCombineWorkloads/Workloads.swift is a symlink to this file.
// Both implementations use Combine's public names, so the code below is the same for each.

#if OPENCOMBINE
import OpenCombine
#else
import FutureKit
import StreamCore
#endif

/// A benchmark workload: a name, the unit of one operation, and the default number of operations.
public struct WorkloadInfo: Sendable {
  public let name: String
  public let unit: String
  public let defaultN: Int
}

public enum Workloads {
  /// Every workload, in the order they are reported.
  public static let all: [WorkloadInfo] = [
    WorkloadInfo(name: "sequence", unit: "value", defaultN: 1_000_000),
    WorkloadInfo(name: "passthrough1", unit: "send", defaultN: 1_000_000),
    WorkloadInfo(name: "passthrough100", unit: "send (100 deliveries)", defaultN: 10_000),
    WorkloadInfo(name: "currentValue", unit: "set", defaultN: 1_000_000),
    WorkloadInfo(name: "sinkCancel", unit: "sink + cancel", defaultN: 100_000),
    WorkloadInfo(name: "demandMax1", unit: "value", defaultN: 1_000_000),
    WorkloadInfo(name: "futureResolve", unit: "future + sink + resolve", defaultN: 1_000_000),
  ]

  public static func info(_ name: String) -> WorkloadInfo? {
    all.first { $0.name == name }
  }

  /// Runs workload `name` with `n` operations and returns a checksum of what was delivered,
  /// so the optimiser cannot drop the work.
  ///
  /// `measure` is called exactly once, with the hot loop of `n` operations as its argument:
  /// setup (creating subjects, attaching subscribers) happens before it and teardown after it,
  /// so a caller can time or count allocations of the steady state alone.
  /// Returns nil for an unknown name.
  public static func run(
    _ name: String,
    n: Int,
    measure: (() -> Void) -> Void = { body in body() }
  ) -> Int? {
    switch name {
    case "sequence": return sequence(n: n, measure: measure)
    case "passthrough1": return passthrough(n: n, subscribers: 1, measure: measure)
    case "passthrough100": return passthrough(n: n, subscribers: 100, measure: measure)
    case "currentValue": return currentValue(n: n, measure: measure)
    case "sinkCancel": return sinkCancel(n: n, measure: measure)
    case "demandMax1": return demandMax1(n: n, measure: measure)
    case "futureResolve": return futureResolve(n: n, measure: measure)
    default: return nil
    }
  }
}

/// Accumulates delivered values. A class so that sinks can share it without capturing a `var`.
private final class Accumulator {
  var sum = 0
  var count = 0

  var checksum: Int { sum &+ count }

  @inline(__always)
  func add(_ value: Int) {
    sum &+= value
    count &+= 1
  }
}

/// 1. `(0..<n).publisher` into a sink that sums the values (op = one value).
private func sequence(n: Int, measure: (() -> Void) -> Void) -> Int {
  let acc = Accumulator()
  var cancellable: AnyCancellable?
  measure {
    cancellable = (0..<n).publisher.sink { value in acc.add(value) }
  }
  cancellable?.cancel()
  return acc.checksum
}

/// 2 and 3. A `PassthroughSubject` with `subscribers` sinks, sent `n` values (op = one send).
private func passthrough(n: Int, subscribers: Int, measure: (() -> Void) -> Void) -> Int {
  let acc = Accumulator()
  let subject = PassthroughSubject<Int, Never>()
  var cancellables: [AnyCancellable] = []
  cancellables.reserveCapacity(subscribers)
  for _ in 0..<subscribers {
    cancellables.append(subject.sink { value in acc.add(value) })
  }
  measure {
    for i in 0..<n {
      subject.send(i)
    }
  }
  subject.send(completion: .finished)
  cancellables.removeAll()
  return acc.checksum
}

/// 4. A `CurrentValueSubject` with one sink, its value set `n` times (op = one set).
private func currentValue(n: Int, measure: (() -> Void) -> Void) -> Int {
  let acc = Accumulator()
  let subject = CurrentValueSubject<Int, Never>(-1)
  let cancellable = subject.sink { value in acc.add(value) }
  measure {
    for i in 0..<n {
      subject.value = i
    }
  }
  cancellable.cancel()
  return acc.checksum &+ subject.value
}

/// 5. `n` times: attach a sink to one `PassthroughSubject`, then cancel it (op = one sink + cancel).
private func sinkCancel(n: Int, measure: (() -> Void) -> Void) -> Int {
  let acc = Accumulator()
  let subject = PassthroughSubject<Int, Never>()
  measure {
    for _ in 0..<n {
      let cancellable = subject.sink { value in acc.add(value) }
      cancellable.cancel()
    }
  }
  // Every sink was cancelled, so this reaches nobody and the checksum stays at n.
  subject.send(1)
  return acc.checksum &+ n
}

/// 6. A hand-written subscriber that demands one value at a time, subscribed to `(0..<n).publisher`
/// (op = one value).
private func demandMax1(n: Int, measure: (() -> Void) -> Void) -> Int {
  let subscriber = OneAtATimeSubscriber()
  measure {
    (0..<n).publisher.subscribe(subscriber)
  }
  return subscriber.acc.checksum &+ (subscriber.finished ? 1 : 0)
}

/// Requests `.max(1)` on subscription and `.max(1)` more after each value.
private final class OneAtATimeSubscriber: Subscriber {
  typealias Input = Int
  typealias Failure = Never

  let acc = Accumulator()
  var subscription: (any Subscription)?
  var finished = false

  func receive(subscription: any Subscription) {
    self.subscription = subscription
    subscription.request(.max(1))
  }

  func receive(_ input: Int) -> Subscribers.Demand {
    acc.add(input)
    return .max(1)
  }

  func receive(completion: Subscribers.Completion<Never>) {
    subscription = nil
    finished = true
  }
}

/// 7. `n` times: create a `Future` whose closure stores its promise, attach one sink, then
/// resolve the promise (op = one future created, subscribed to and resolved).
private func futureResolve(n: Int, measure: (() -> Void) -> Void) -> Int {
  let acc = Accumulator()
  let holder = PromiseHolder()
  measure {
    for i in 0..<n {
      let future = Future<Int, Never> { promise in holder.promise = promise }
      let cancellable = future.sink { value in acc.add(value) }
      holder.promise?(.success(i))
      withExtendedLifetime(cancellable) {}
    }
  }
  holder.promise = nil
  return acc.checksum
}

/// Keeps the promise a `Future` hands out, as code that completes it later would.
private final class PromiseHolder {
  var promise: Future<Int, Never>.Promise?
}
