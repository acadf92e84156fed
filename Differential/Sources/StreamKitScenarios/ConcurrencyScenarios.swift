// Concurrency, compared as properties rather than traces (issue 42): which thread a value is
// delivered on, whether `send` has returned, that nothing is lost or duplicated. Written once
// and compiled twice like Scenarios.swift (Sources/OpenCombineScenarios/ConcurrencyScenarios.swift
// is a symlink to this file); `Differential --concurrency` runs each check in both libraries and
// compares what they report, line by line. Each line is a fact that holds on every run (counts,
// yes or no), never a timing.

import DiffModel
import Dispatch
import Foundation

#if OPENCOMBINE
import OpenCombine
import OpenCombineDispatch
#else
import FutureKit
import SignalOperators
import StreamCore
#endif

/// The queue as each library's scheduler (OpenCombine wraps it).
func scheduler(_ queue: DispatchQueue) -> some Scheduler {
  #if OPENCOMBINE
  queue.ocombine
  #else
  queue
  #endif
}

public enum ConcurrencyScenarios {
  /// The checks, by name; each returns one line per fact.
  public static let checks: [(name: String, run: @Sendable () -> [String])] = [
    ("subject", subjectFromTwoThreads), ("receive(on:)", receiveOnQueue),
    ("subscribe(on:)", subscribeOnQueue), ("send", synchronousSend),
    ("Future", futureFromAnotherThread), ("flatMap", flatMapFromTwoThreads),
    ("values", values), ("values, two waiters", valuesTwoWaiters),
  ]

  /// Runs the check named `name`; `nil` when there is none.
  public static func run(_ name: String) -> [String]? {
    checks.first { $0.name == name }?.run()
  }

  /// Values sent per thread.
  static let count = 2_000

  /// Two threads send into one `PassthroughSubject` at once: each value arrives once, and the
  /// subscriber is never called on two threads at the same time.
  static func subjectFromTwoThreads() -> [String] {
    let subject = PassthroughSubject<Int, Never>()
    let counter = Counter()
    subject.subscribe(counter)
    let shared = Unchecked(subject)
    DispatchQueue.concurrentPerform(iterations: 2) { thread in
      for i in 0..<count { shared.value.send(thread * count + i) }
    }
    return [
      "subject, two senders: values \(counter.values.count), distinct \(Set(counter.values).count)",
      "subject, two senders: most calls at once \(counter.mostAtOnce)",
    ]
  }

  /// `receive(on:)` a serial queue: every value and the completion arrive on that queue, in
  /// order.
  static func receiveOnQueue() -> [String] {
    let (queue, onQueue) = markedQueue("differential.receive")
    let done = DispatchSemaphore(value: 0)
    let counter = Counter(onCompletion: { done.signal() }) {
      onQueue()
    }
    (0..<count).publisher.receive(on: scheduler(queue)).subscribe(counter)
    done.wait()
    return [
      "receive(on:): values \(counter.values.count), in order \(counter.values == Array(0..<count))",
      "receive(on:): every call on the queue \(counter.allOnQueue)",
    ]
  }

  /// `subscribe(on:)` a serial queue: the upstream is subscribed, and asked for values, on that
  /// queue.
  static func subscribeOnQueue() -> [String] {
    let (queue, onQueue) = markedQueue("differential.subscribe")
    let done = DispatchSemaphore(value: 0)
    let calls = Locked<[String]>([])
    let upstream = Deferred { () -> Just<Int> in
      calls.mutate { $0.append("subscribed on queue \(onQueue())") }
      return Just(7)
    }
    .handleEvents(receiveRequest: { _ in
      calls.mutate { $0.append("asked on queue \(onQueue())") }
    })
    let counter = Counter(onCompletion: { done.signal() })
    upstream.subscribe(on: scheduler(queue)).subscribe(counter)
    done.wait()
    return calls.value.map { "subscribe(on:): \($0)" } + [
      "subscribe(on:): values \(counter.values)"
    ]
  }

  /// `send` delivers before it returns, on the sender's thread.
  static func synchronousSend() -> [String] {
    let subject = PassthroughSubject<Int, Never>()
    let counter = Counter()
    subject.subscribe(counter)
    var arrivedBeforeReturn: [Bool] = []
    for i in 0..<10 {
      subject.send(i)
      arrivedBeforeReturn.append(counter.values.count == i + 1)
    }
    return ["send: delivered before it returns \(arrivedBeforeReturn.allSatisfy { $0 })"]
  }

  /// A `Future` fulfilled on another thread delivers its value once, then finishes.
  static func futureFromAnotherThread() -> [String] {
    let done = DispatchSemaphore(value: 0)
    // Fulfilled once the subscriber is there, from another thread.
    let promise = Locked<((Result<Int, Never>) -> Void)?>(nil)
    let future = Future<Int, Never> { fulfil in promise.mutate { $0 = fulfil } }
    let counter = Counter(onCompletion: { done.signal() })
    future.subscribe(counter)
    let fulfil = Unchecked(promise.value)
    DispatchQueue.global().async { fulfil.value?(.success(5)) }
    done.wait()
    return ["Future, fulfilled elsewhere: values \(counter.values), finished \(counter.finished)"]
  }

  /// `flatMap` over two subjects, each sent into from its own thread: every value arrives once.
  /// (`zip` would be the natural check, but OpenCombine's crashes with two senders: it reads a
  /// released object, as the scripted scenarios record under I22.)
  static func flatMapFromTwoThreads() -> [String] {
    let a = PassthroughSubject<Int, Never>()
    let b = PassthroughSubject<Int, Never>()
    let counter = Counter()
    [a, b].publisher.flatMap { $0 }.subscribe(counter)
    let subjects = Unchecked([a, b])
    DispatchQueue.concurrentPerform(iterations: 2) { thread in
      for i in 0..<count { subjects.value[thread].send(thread * count + i) }
    }
    let values = counter.values
    return [
      "flatMap, two senders: values \(values.count), distinct \(Set(values).count)",
      "flatMap, two senders: each sender's in order \(inOrder(values, 0..<count) && inOrder(values, count..<2 * count))",
      "flatMap, two senders: most calls at once \(counter.mostAtOnce)",
    ]
  }

  /// `values`: a publisher's values as an async sequence, in order, and a failure thrown.
  static func values() -> [String] {
    awaiting {
      var lines: [String] = []
      var got: [Int] = []
      for await x in [1, 2, 3].publisher.values { got.append(x) }
      lines.append("values: \(got)")
      do {
        for try await _ in Fail<Int, TestError>(error: TestError(code: 1)).values {}
        lines.append("values, failing: finished")
      } catch {
        lines.append("values, failing: threw \(error)")
      }
      return lines
    }
  }

  /// Two tasks awaiting one `values` iterator at once: each value goes to one of them, and
  /// none is lost.
  static func valuesTwoWaiters() -> [String] {
    awaiting {
      // Each task calls its own copy of one iterator: the copies share its subscription.
      let iterator = Unchecked([1, 2, 3, 4].publisher.values.makeAsyncIterator())
      async let first = Shared(iterator.value).next2()
      async let second = Shared(iterator.value).next2()
      let all = (await first) + (await second)
      return ["values, two waiters: \(all.sorted())"]
    }
  }

  /// Runs `body` in a task and waits for it.
  static func awaiting(_ body: @escaping @Sendable () async -> [String]) -> [String] {
    let result = Locked<[String]>([])
    let done = DispatchSemaphore(value: 0)
    Task {
      let lines = await body()
      result.mutate { $0 = lines }
      done.signal()
    }
    done.wait()
    return result.value
  }

  /// A serial queue, and a test of whether the current code runs on it.
  static func markedQueue(_ label: String) -> (DispatchQueue, @Sendable () -> Bool) {
    let queue = DispatchQueue(label: label)
    let key = DispatchSpecificKey<Int>()
    queue.setSpecific(key: key, value: 1)
    return (queue, { DispatchQueue.getSpecific(key: key) == 1 })
  }

  /// Whether the values of `values` in `range` come in increasing order.
  static func inOrder(_ values: [Int], _ range: Range<Int>) -> Bool {
    let mine = values.filter { range.contains($0) }
    return mine == mine.sorted()
  }
}

/// A value handed to another thread: OpenCombine's types declare no `Sendable` conformance,
/// and each use here is one its type supports from any thread (a subject's `send`, a promise).
struct Unchecked<Value>: @unchecked Sendable {
  let value: Value
  init(_ value: Value) { self.value = value }
}

/// A copy of an async iterator, for one task (what `valuesTwoWaiters` checks).
final class Shared<Iterator: AsyncIteratorProtocol>: @unchecked Sendable
where Iterator.Element == Int {
  var iterator: Iterator
  init(_ iterator: Iterator) { self.iterator = iterator }
  /// Two values, each from its own `next()`.
  func next2() async -> [Int] {
    var got: [Int] = []
    for _ in 0..<2 {
      if let x = try? await iterator.next() { got.append(x) }
    }
    return got
  }
}

/// A value behind a lock.
final class Locked<Value>: @unchecked Sendable {
  private let lock = NSLock()
  private var stored: Value
  init(_ value: Value) { stored = value }
  var value: Value { lock.withLock { stored } }
  func mutate(_ body: (inout Value) -> Void) { lock.withLock { body(&stored) } }
}

/// Records what it receives, from any thread, and how many of its calls overlapped.
final class Counter: Subscriber, @unchecked Sendable {
  typealias Input = Int
  typealias Failure = Never

  private let lock = NSLock()
  private var received: [Int] = []
  private var inside = 0
  private var most = 0
  private var onQueue = true
  private var done = false
  /// For the planted bug: whether it lost its value yet.
  private var lostOne = false
  private let onCompletion: () -> Void
  private let check: () -> Bool

  init(onCompletion: @escaping () -> Void = {}, check: @escaping () -> Bool = { true }) {
    self.onCompletion = onCompletion
    self.check = check
  }

  var values: [Int] { lock.withLock { received } }
  var mostAtOnce: Int { lock.withLock { most } }
  var allOnQueue: Bool { lock.withLock { onQueue } }
  var finished: Bool { lock.withLock { done } }

  func receive(subscription: any Subscription) { subscription.request(.unlimited) }

  func receive(_ input: Int) -> Subscribers.Demand {
    let onTheQueue = check()
    lock.withLock {
      inside += 1
      most = max(most, inside)
      if !onTheQueue { onQueue = false }
    }
    // Some work while inside, so that overlapping calls would be seen.
    var spin = 0
    for k in 0..<2_000 { spin &+= k &* k }
    if spin == 1 { print(spin) }
    lock.withLock {
      #if !OPENCOMBINE
      // The planted bug of Mutants.swift: one value lost.
      if Mutants.active?.name == "concurrent-lost-value", received.count == 10, !lostOne {
        lostOne = true
        inside -= 1
        return
      }
      #endif
      received.append(input)
      inside -= 1
    }
    return .none
  }

  func receive(completion: Subscribers.Completion<Never>) {
    let onTheQueue = check()
    lock.withLock {
      done = true
      if !onTheQueue { onQueue = false }
    }
    onCompletion()
  }
}
