// The benchmark workloads, written once and compiled twice:
//   - as module `StreamKitWorkloads` against StreamKit's `StreamCore`, and
//   - as module `OpenCombineWorkloads` against OpenCombine (with `OPENCOMBINE` defined);
//     Sources/OpenCombineWorkloads/Workloads.swift is a symlink to this file.
// Both implementations use Combine's public names, so the code below is the same for each.

import Dispatch

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

#if OPENCOMBINE
import OpenCombine
import OpenCombineDispatch
#else
import FutureKit
import PropertyWrappers
import SignalOperators
import StreamCombineExt
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
    WorkloadInfo(name: "mapFilter", unit: "value", defaultN: 1_000_000),
    WorkloadInfo(name: "mapFilterLoop", unit: "value (hand-written loop)", defaultN: 1_000_000),
    WorkloadInfo(name: "combineLatest2", unit: "send", defaultN: 500_000),
    WorkloadInfo(name: "zip2", unit: "send", defaultN: 500_000),
    WorkloadInfo(name: "merge8", unit: "send", defaultN: 1_000_000),
    WorkloadInfo(name: "flatMapJust", unit: "value", defaultN: 200_000),
    WorkloadInfo(name: "receiveOn", unit: "value", defaultN: 200_000),
    WorkloadInfo(name: "flatMapSubjects8", unit: "send", defaultN: 500_000),
    WorkloadInfo(name: "flatMapErased", unit: "value", defaultN: 100_000),
    WorkloadInfo(name: "flatMapFuture", unit: "value", defaultN: 100_000),
    WorkloadInfo(name: "currentValue10", unit: "set (10 deliveries)", defaultN: 200_000),
    WorkloadInfo(name: "published1", unit: "set", defaultN: 1_000_000),
    WorkloadInfo(name: "receiveOnSubject", unit: "send", defaultN: 200_000),
    WorkloadInfo(name: "contended4x2", unit: "send (2 deliveries)", defaultN: 400_000),
    WorkloadInfo(name: "contendedLocks4x2", unit: "send (2 calls under locks)", defaultN: 400_000),
    WorkloadInfo(
      name: "contendedCombining4x2",
      unit: "send (2 calls, one thread at a time)",
      defaultN: 400_000
    ),
    WorkloadInfo(name: "withLatestFrom", unit: "send", defaultN: 1_000_000),
    WorkloadInfo(name: "shareReplay10", unit: "send (10 deliveries)", defaultN: 200_000),
    WorkloadInfo(name: "catchSubscribe", unit: "subscription", defaultN: 100_000),
    WorkloadInfo(name: "catchValues", unit: "send", defaultN: 1_000_000),
    WorkloadInfo(name: "retryValues", unit: "send", defaultN: 1_000_000),
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
    case "mapFilter": return mapFilter(n: n, measure: measure)
    case "mapFilterLoop": return mapFilterLoop(n: n, measure: measure)
    case "combineLatest2": return combineLatest2(n: n, measure: measure)
    case "zip2": return zip2(n: n, measure: measure)
    case "merge8": return merge8(n: n, measure: measure)
    case "flatMapJust": return flatMapJust(n: n, measure: measure)
    case "receiveOn": return receiveOn(n: n, measure: measure)
    case "flatMapSubjects8": return flatMapSubjects8(n: n, measure: measure)
    case "flatMapErased": return flatMapErased(n: n, measure: measure)
    case "flatMapFuture": return flatMapFuture(n: n, measure: measure)
    case "currentValue10": return currentValue10(n: n, measure: measure)
    case "published1": return published1(n: n, measure: measure)
    case "receiveOnSubject": return receiveOnSubject(n: n, measure: measure)
    case "contended4x2": return contended4x2(n: n, measure: measure)
    case "contendedLocks4x2": return contendedLocks4x2(n: n, measure: measure)
    case "contendedCombining4x2": return contendedCombining4x2(n: n, measure: measure)
    case "withLatestFrom": return withLatestFrom(n: n, measure: measure)
    case "shareReplay10": return shareReplay10(n: n, measure: measure)
    case "catchSubscribe": return catchSubscribe(n: n, measure: measure)
    case "catchValues": return catchValues(n: n, measure: measure)
    case "retryValues": return retryValues(n: n, measure: measure)
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

/// The closures of the map/filter workloads, shared by the pipeline and the hand-written loop.
/// They come from functions the optimiser can't look into, so both really call them: with
/// literal closures it inlines and vectorises the loop (4 instructions per value), which
/// measures the optimiser rather than the pipeline.
@inline(never)
private func makeTriple() -> (Int) -> Int { { $0 &* 3 } }

@inline(never)
private func makeIsEven() -> (Int) -> Bool { { $0 & 1 == 0 } }

/// 8. `(0..<n).publisher.map(triple).filter(isEven)` into a summing sink (op = one source value).
private func mapFilter(n: Int, measure: (() -> Void) -> Void) -> Int {
  let acc = Accumulator()
  let triple = makeTriple()
  let isEven = makeIsEven()
  var cancellable: AnyCancellable?
  measure {
    cancellable = (0..<n).publisher.map(triple).filter(isEven).sink { value in acc.add(value) }
  }
  cancellable?.cancel()
  return acc.checksum
}

/// 9. The baseline for 8: a loop calling the same closures (op = one source value).
private func mapFilterLoop(n: Int, measure: (() -> Void) -> Void) -> Int {
  let acc = Accumulator()
  let triple = makeTriple()
  let isEven = makeIsEven()
  measure {
    handWrittenLoop(n: n, transform: triple, isIncluded: isEven, acc: acc)
  }
  return acc.checksum
}

@inline(never)
private func handWrittenLoop(
  n: Int,
  transform: (Int) -> Int,
  isIncluded: (Int) -> Bool,
  acc: Accumulator
) {
  for i in 0..<n {
    let value = transform(i)
    if isIncluded(value) { acc.add(value) }
  }
}

/// 10. Two `PassthroughSubject`s combined into a sink, sent `n` values in turn (op = one send).
/// OpenCombine has no `combineLatest`, so its side runs `zip`, the yardstick.
private func combineLatest2(n: Int, measure: (() -> Void) -> Void) -> Int {
  let acc = Accumulator()
  let a = PassthroughSubject<Int, Never>()
  let b = PassthroughSubject<Int, Never>()
  #if OPENCOMBINE
  let cancellable = a.zip(b).sink { pair in acc.add(pair.0 &+ pair.1) }
  #else
  let cancellable = a.combineLatest(b).sink { pair in acc.add(pair.0 &+ pair.1) }
  #endif
  measure {
    for i in 0..<n {
      if i & 1 == 0 { a.send(i) } else { b.send(i) }
    }
  }
  cancellable.cancel()
  return acc.count
}

/// 11. Two `PassthroughSubject`s zipped into a sink, sent `n` values in turn (op = one send).
private func zip2(n: Int, measure: (() -> Void) -> Void) -> Int {
  let acc = Accumulator()
  let a = PassthroughSubject<Int, Never>()
  let b = PassthroughSubject<Int, Never>()
  let cancellable = a.zip(b).sink { pair in acc.add(pair.0 &+ pair.1) }
  measure {
    for i in 0..<n {
      if i & 1 == 0 { a.send(i) } else { b.send(i) }
    }
  }
  cancellable.cancel()
  return acc.checksum
}

/// 12. Eight `PassthroughSubject`s merged into a sink, sent `n` values round-robin (op = one
/// send). OpenCombine has no `merge`, so its side flattens the subjects with `flatMap`.
private func merge8(n: Int, measure: (() -> Void) -> Void) -> Int {
  let acc = Accumulator()
  let subjects = (0..<8).map { _ in PassthroughSubject<Int, Never>() }
  #if OPENCOMBINE
  let cancellable = subjects.publisher.flatMap { $0 }.sink { value in acc.add(value) }
  #else
  let cancellable = subjects[0]
    .merge(
      with: subjects[1],
      subjects[2],
      subjects[3],
      subjects[4],
      subjects[5],
      subjects[6],
      subjects[7]
    )
    .sink { value in acc.add(value) }
  #endif
  measure {
    for i in 0..<n {
      subjects[i & 7].send(i)
    }
  }
  cancellable.cancel()
  return acc.checksum
}

/// 13. `(0..<n).publisher.flatMap { Just($0) }` into a summing sink (op = one value).
private func flatMapJust(n: Int, measure: (() -> Void) -> Void) -> Int {
  let acc = Accumulator()
  var cancellable: AnyCancellable?
  measure {
    cancellable = (0..<n).publisher.flatMap { Just($0) }.sink { value in acc.add(value) }
  }
  cancellable?.cancel()
  return acc.checksum
}

/// 14. `(0..<n).publisher.receive(on:)` a serial `DispatchQueue`, waiting for the completion
/// (op = one value delivered on the queue).
private func receiveOn(n: Int, measure: (() -> Void) -> Void) -> Int {
  let acc = Accumulator()
  let queue = DispatchQueue(label: "bench.receiveOn")
  let done = DispatchSemaphore(value: 0)
  var cancellable: AnyCancellable?
  #if OPENCOMBINE
  let scheduler = queue.ocombine
  #else
  let scheduler = queue
  #endif
  measure {
    cancellable = (0..<n).publisher.receive(on: scheduler)
      .sink(receiveCompletion: { _ in done.signal() }, receiveValue: { value in acc.add(value) })
    done.wait()
  }
  cancellable?.cancel()
  return acc.checksum
}

/// 15. Eight `PassthroughSubject`s flattened with `subjects.publisher.flatMap { $0 }` into a sink,
/// sent `n` values round-robin (op = one send). The same code on both sides: the children are
/// subjects, not `Just`s, as with network calls or other live sources.
private func flatMapSubjects8(n: Int, measure: (() -> Void) -> Void) -> Int {
  let acc = Accumulator()
  let subjects = (0..<8).map { _ in PassthroughSubject<Int, Never>() }
  let cancellable = subjects.publisher.flatMap { $0 }.sink { value in acc.add(value) }
  measure {
    for i in 0..<n {
      subjects[i & 7].send(i)
    }
  }
  cancellable.cancel()
  return acc.checksum
}

/// 16. `(0..<n).publisher.flatMap { Just($0).eraseToAnyPublisher() }` into a summing sink (op =
/// one value, which subscribes to one type-erased child). The child's code is reached through
/// `AnyPublisher`, so the child-side paths of `flatMap` run as they do for any child type the
/// optimiser can't see through.
private func flatMapErased(n: Int, measure: (() -> Void) -> Void) -> Int {
  let acc = Accumulator()
  var cancellable: AnyCancellable?
  measure {
    cancellable = (0..<n).publisher.flatMap { Just($0).eraseToAnyPublisher() }
      .sink { value in acc.add(value) }
  }
  cancellable?.cancel()
  return acc.checksum
}

/// 17. `(0..<n).publisher.flatMap { v in Future { $0(.success(v)) } }` into a summing sink (op =
/// one value: a future made, resolved, subscribed to and finished).
private func flatMapFuture(n: Int, measure: (() -> Void) -> Void) -> Int {
  let acc = Accumulator()
  var cancellable: AnyCancellable?
  measure {
    cancellable = (0..<n).publisher
      .flatMap { value in Future<Int, Never> { promise in promise(.success(value)) } }
      .sink { value in acc.add(value) }
  }
  cancellable?.cancel()
  return acc.checksum
}

/// 18. A `CurrentValueSubject` with ten sinks, its value set `n` times (op = one set, ten
/// deliveries).
private func currentValue10(n: Int, measure: (() -> Void) -> Void) -> Int {
  let acc = Accumulator()
  let subject = CurrentValueSubject<Int, Never>(-1)
  let cancellables = (0..<10).map { _ in subject.sink { value in acc.add(value) } }
  measure {
    for i in 0..<n {
      subject.value = i
    }
  }
  for cancellable in cancellables { cancellable.cancel() }
  return acc.checksum
}

/// A model with one `@Published` property, the shape of a SwiftUI view model.
private final class PublishedModel {
  @Published var value = 0
}

/// 19. A `@Published` property with one sink, set `n` times (op = one set).
private func published1(n: Int, measure: (() -> Void) -> Void) -> Int {
  let acc = Accumulator()
  let model = PublishedModel()
  let cancellable = model.$value.sink { value in acc.add(value) }
  measure {
    for i in 0..<n {
      model.value = i
    }
  }
  cancellable.cancel()
  return acc.checksum
}

/// 20. A `PassthroughSubject` sent `n` values on this thread, received on a serial
/// `DispatchQueue`, mapped and summed there; waits for the completion (op = one send). The shape
/// of a UI update: work finishes on one thread, the result is shown on another.
private func receiveOnSubject(n: Int, measure: (() -> Void) -> Void) -> Int {
  let acc = Accumulator()
  let queue = DispatchQueue(label: "bench.receiveOnSubject")
  let done = DispatchSemaphore(value: 0)
  let subject = PassthroughSubject<Int, Never>()
  #if OPENCOMBINE
  let scheduler = queue.ocombine
  #else
  let scheduler = queue
  #endif
  let cancellable = subject.receive(on: scheduler).map { $0 &* 2 }
    .sink(receiveCompletion: { _ in done.signal() }, receiveValue: { value in acc.add(value) })
  measure {
    for i in 0..<n {
      subject.send(i)
    }
    subject.send(completion: .finished)
    done.wait()
  }
  cancellable.cancel()
  return acc.checksum
}

/// Lets threads share what the workload's own synchronisation already protects.
private final class Shared<Value>: @unchecked Sendable {
  let value: Value

  init(_ value: Value) {
    self.value = value
  }
}

/// 21. Four threads sending `n` values in all into one `PassthroughSubject` with two sinks (op =
/// one send, two deliveries). Time only: callgrind runs threads one at a time, so instruction
/// counts say nothing about contention. Each sink sums into its own accumulator; a library calls
/// one subscriber from one thread at a time, so nothing is lost if the checksum matches.
///
/// Four threads of their own, each on a serial queue (which gets a thread even when the cores
/// are busy), wait at a gate opened inside the measurement. `concurrentPerform` runs as many
/// threads as there are cores, so on a 2-core machine it ran two senders, and one of them
/// sometimes did all four iterations alone (no contention at all).
private func contended4x2(n: Int, measure: (() -> Void) -> Void) -> Int {
  let first = Accumulator()
  let second = Accumulator()
  let subject = PassthroughSubject<Int, Never>()
  let cancellables = [
    subject.sink { value in first.add(value) },
    subject.sink { value in second.add(value) },
  ]
  let shared = Shared(subject)
  onFourThreads("contended4x2", n: n, measure: measure) { values in
    let subject = shared.value
    for value in values { subject.send(value) }
  }
  for cancellable in cancellables { cancellable.cancel() }
  return first.checksum &+ second.checksum
}

/// 21b. A reference for 21, and the same code on both sides: the same four threads and gate,
/// and each send calls two closures that sum into two accumulators, each call under a lock of
/// its own (a `pthread_mutex_t`, the system's mutex): every sending thread delivers, as
/// Combine's subject does. Not a floor: 21c, where one thread at a time delivers, is several
/// times faster, since the accumulators' lines then stay on one core.
private func contendedLocks4x2(n: Int, measure: (() -> Void) -> Void) -> Int {
  let first = Accumulator()
  let second = Accumulator()
  let sinks = Shared([
    LockedCall { value in first.add(value) },
    LockedCall { value in second.add(value) },
  ])
  onFourThreads("contendedLocks4x2", n: n, measure: measure) { values in
    let sinks = sinks.value
    for value in values {
      for sink in sinks { sink.call(value) }
    }
  }
  return first.checksum &+ second.checksum
}

/// 21c. The floor for 21 with one thread delivering at a time, and the same code on both sides:
/// the same four threads and gate; a send that finds another thread delivering appends its value
/// to a queue under a lock (a `pthread_mutex_t`) and returns, and the delivering thread calls
/// the two summing closures for its own value and then for every queued one, taking the queue
/// whole. That is StreamKit's subject's shape without a subject: no subscriber list to read, no
/// demand, no re-entrant send, no conduit per subscriber.
private func contendedCombining4x2(n: Int, measure: (() -> Void) -> Void) -> Int {
  let first = Accumulator()
  let second = Accumulator()
  let combiner = Shared(Combiner(sinks: [{ first.add($0) }, { second.add($0) }]))
  onFourThreads("contendedCombining4x2", n: n, measure: measure) { values in
    let combiner = combiner.value
    for value in values { combiner.send(value) }
  }
  return first.checksum &+ second.checksum
}

/// One thread at a time calls `sinks`; the others queue their values for it, for
/// `contendedCombining4x2`.
private final class Combiner: @unchecked Sendable {
  // Sendable: `delivering`, `queue` and `spare` are only used under `mutex`; `sinks` is
  // immutable and called by one thread at a time (the one that set `delivering`).
  let mutex: UnsafeMutablePointer<pthread_mutex_t>
  let sinks: [(Int) -> Void]
  var delivering = false
  var queue: [Int] = []
  var spare: [Int] = []

  init(sinks: [(Int) -> Void]) {
    self.sinks = sinks
    mutex = .allocate(capacity: 1)
    pthread_mutex_init(mutex, nil)
    queue.reserveCapacity(1024)
    spare.reserveCapacity(1024)
  }

  deinit {
    pthread_mutex_destroy(mutex)
    mutex.deallocate()
  }

  func send(_ value: Int) {
    pthread_mutex_lock(mutex)
    if delivering {
      queue.append(value)
      pthread_mutex_unlock(mutex)
      return
    }
    delivering = true
    pthread_mutex_unlock(mutex)
    for sink in sinks { sink(value) }
    var batch = [Int]()
    while true {
      pthread_mutex_lock(mutex)
      if queue.isEmpty {
        delivering = false
        if batch.capacity > spare.capacity { swap(&batch, &spare) }  // kept for next time
        pthread_mutex_unlock(mutex)
        return
      }
      if batch.capacity == 0 { swap(&batch, &spare) }
      swap(&batch, &queue)  // the queue goes on in the emptied buffer
      pthread_mutex_unlock(mutex)
      for value in batch {
        for sink in sinks { sink(value) }
      }
      batch.removeAll(keepingCapacity: true)
    }
  }
}

/// Runs `body` on four threads of their own, each with its quarter of `0..<n`, started together
/// inside `measure` and waited for there.
private func onFourThreads(
  _ name: String,
  n: Int,
  measure: (() -> Void) -> Void,
  body: @escaping @Sendable (Range<Int>) -> Void
) {
  let perThread = n / 4
  let gate = DispatchSemaphore(value: 0)
  let finished = DispatchGroup()
  for thread in 0..<4 {
    DispatchQueue(label: "\(name).\(thread)").async(group: finished) {
      gate.wait()
      body(thread &* perThread..<(thread &+ 1) &* perThread)
    }
  }
  measure {
    for _ in 0..<4 { gate.signal() }
    finished.wait()
  }
}

/// A closure called under a `pthread_mutex_t` of its own, for `contendedLocks4x2`.
private final class LockedCall: @unchecked Sendable {
  // Sendable: `body` runs only under `mutex`.
  let mutex: UnsafeMutablePointer<pthread_mutex_t>
  let body: (Int) -> Void

  init(_ body: @escaping (Int) -> Void) {
    self.body = body
    mutex = .allocate(capacity: 1)
    pthread_mutex_init(mutex, nil)
  }

  deinit {
    pthread_mutex_destroy(mutex)
    mutex.deallocate()
  }

  @inline(__always)
  func call(_ value: Int) {
    pthread_mutex_lock(mutex)
    body(value)
    pthread_mutex_unlock(mutex)
  }
}

/// 22. CombineExt's `withLatestFrom`: each send into a `PassthroughSubject` is combined with the
/// latest value of a `CurrentValueSubject` (op = one send). OpenCombine (and Combine) has no
/// `withLatestFrom`; its side reads the other subject's `value` in a `map`, what code without
/// CombineExt writes.
private func withLatestFrom(n: Int, measure: (() -> Void) -> Void) -> Int {
  let acc = Accumulator()
  let upstream = PassthroughSubject<Int, Never>()
  let other = CurrentValueSubject<Int, Never>(7)
  #if OPENCOMBINE
  let cancellable = upstream.map { $0 &+ other.value }.sink { value in acc.add(value) }
  #else
  let cancellable = upstream.withLatestFrom(other) { $0 &+ $1 }.sink { value in acc.add(value) }
  #endif
  measure {
    for i in 0..<n {
      upstream.send(i)
    }
  }
  cancellable.cancel()
  return acc.checksum
}

/// 23. CombineExt's `share(replay: 1)` over a `PassthroughSubject`, with ten sinks (op = one
/// send, ten deliveries). OpenCombine has no `share(replay:)`; its side multicasts through a
/// `CurrentValueSubject`, the nearest replay of one value it has.
private func shareReplay10(n: Int, measure: (() -> Void) -> Void) -> Int {
  let acc = Accumulator()
  let subject = PassthroughSubject<Int, Never>()
  #if OPENCOMBINE
  let shared = subject.multicast(subject: CurrentValueSubject<Int, Never>(-1)).autoconnect()
  let cancellables = (0..<10).map { _ in shared.sink { value in acc.add(value) } }
  #else
  let shared = subject.share(replay: 1)
  var cancellables = [shared.sink { value in acc.add(value) }]
  subject.send(-1)  // replayed to the other nine, as OpenCombine's CurrentValueSubject(-1) is
  cancellables += (1..<10).map { _ in shared.sink { value in acc.add(value) } }
  #endif
  measure {
    for i in 0..<n {
      subject.send(i)
    }
  }
  for cancellable in cancellables { cancellable.cancel() }
  return acc.checksum
}

/// The failure of the error-handling workloads.
private struct BenchError: Error {}

/// 24. `n` times: a sink subscribed to `Fail(error:).catch { _ in Just(i) }` (op = one
/// subscription: the failure, the replacement subscribed, one value, one completion).
private func catchSubscribe(n: Int, measure: (() -> Void) -> Void) -> Int {
  let acc = Accumulator()
  measure {
    for i in 0..<n {
      _ = Fail<Int, BenchError>(error: BenchError()).catch { _ in Just(i) }
        .sink { value in acc.add(value) }
    }
  }
  return acc.checksum
}

/// 25. A `PassthroughSubject` through `catch { _ in Empty() }` (which never fails) into a sink,
/// sent `n` values (op = one send: the value path through `catch`).
private func catchValues(n: Int, measure: (() -> Void) -> Void) -> Int {
  let acc = Accumulator()
  let subject = PassthroughSubject<Int, BenchError>()
  let cancellable = subject.catch { _ in Empty<Int, Never>() }.sink { value in acc.add(value) }
  measure {
    for i in 0..<n {
      subject.send(i)
    }
  }
  cancellable.cancel()
  return acc.checksum
}

/// 26. A `PassthroughSubject` through `retry(1)` (which never fails) into a sink, sent `n` values
/// (op = one send: the value path through `retry`).
private func retryValues(n: Int, measure: (() -> Void) -> Void) -> Int {
  let acc = Accumulator()
  let subject = PassthroughSubject<Int, BenchError>()
  let cancellable = subject.retry(1)
    .sink(receiveCompletion: { _ in }, receiveValue: { value in acc.add(value) })
  measure {
    for i in 0..<n {
      subject.send(i)
    }
  }
  cancellable.cancel()
  return acc.checksum
}
