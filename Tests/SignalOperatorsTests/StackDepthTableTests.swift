import Dispatch
import Foundation
import SignalOperators
import StreamCombineExt
import StreamConbini
import StreamCore
import StreamTesting
import Testing

/// Constant stack depth: 100,000 values one at a time (`.max(1)` per value) from each publisher
/// that can deliver from inside `request(_:)` and through each synchronous operator, and 100,000
/// synchronous retries. `Docs/StreamCore.md` ("Requests from inside `receive(_:)`") lists the
/// publishers and how each keeps the stack flat; the subjects' cross-thread case is in
/// `Tests/StreamCoreTests/SubjectThreadingTests.swift`.
///
/// Each case runs in an exit test (its own process), on a thread with a fixed 512 KiB stack, so
/// a recursion that deepens the stack per value or per attempt crashes that process
/// deterministically and fails only its own case.
@Suite(.timeLimit(.minutes(5))) struct StackDepthTableTests {
  @Test(arguments: StackDepthTable.cases.map(\.name), StackDepthDemand.allCases)
  func oneAtATime_runsInConstantStack(_ name: String, _ demand: StackDepthDemand) async {
    // `subscribe(on:)` on an immediate scheduler traps on a request made from inside the
    // upstream's `request(_:)`, as Combine's does (`SubscribeOnTests`).
    let traps = name == "subscribe(on: immediate)" && demand == .requestInsideReceive
    // `zip` passes demand returned from `receive(_:)` back only to the upstream whose value
    // completed the tuple, as Combine's does, so after the first tuple the other upstream is
    // never asked again (`ZipTests.demandReturnedFromReceive_reachesOnlyTheSender`).
    let stalls = name == "zip" && demand == .returnedFromReceive
    await #expect(processExitsWith: traps ? .failure : .success) {
      [name, demand, stalls = stalls as Bool] in
      guard let testCase = StackDepthTable.cases.first(where: { $0.name == name }) else {
        preconditionFailure("no case \(name)")
      }
      let ran = runOnSmallStack {
        let subscriber = OneAtATimeSubscriber(demand: demand)
        testCase.run(subscriber)
        if stalls {
          precondition(!subscriber.finished && subscriber.count == 1, "\(name): did not stall")
          return
        }
        precondition(subscriber.finished, "\(name): did not finish")
        if let expected = testCase.count {
          precondition(subscriber.count == expected, "\(name): \(subscriber.count) values")
        }
      }
      precondition(ran, "\(name): did not end within the time limit")
    }
  }
}

/// How the subscriber asks for the next value.
enum StackDepthDemand: String, CaseIterable, Codable, Sendable {
  /// `subscription.request(.max(1))` from inside `receive(_:)`.
  case requestInsideReceive
  /// `.max(1)` returned from `receive(_:)`.
  case returnedFromReceive
}

/// Runs `body` on a new thread with a stack of `stackSize` bytes and waits for it, at most
/// `timeout` seconds. Returns whether it ended in time.
func runOnSmallStack(
  stackSize: Int = 512 * 1_024,
  timeout: Double = 120,
  _ body: @escaping @Sendable () -> Void
) -> Bool {
  let done = DispatchSemaphore(value: 0)
  let thread = Thread {
    body()
    done.signal()
  }
  thread.stackSize = stackSize
  thread.start()
  return done.wait(timeout: .now() + timeout) == .success
}

/// Counts values and asks for one more each time.
final class OneAtATimeSubscriber: Subscriber, @unchecked Sendable {
  typealias Input = Int
  typealias Failure = Never

  private let demand: StackDepthDemand
  private var subscription: (any Subscription)?
  private(set) var count = 0
  private(set) var finished = false

  init(demand: StackDepthDemand) {
    self.demand = demand
  }

  func receive(subscription: any Subscription) {
    self.subscription = subscription
    subscription.request(.max(1))
  }

  func receive(_ input: Int) -> Subscribers.Demand {
    count += 1
    switch demand {
    case .requestInsideReceive:
      subscription?.request(.max(1))
      return .none
    case .returnedFromReceive:
      return .max(1)
    }
  }

  func receive(completion: Subscribers.Completion<Never>) {
    finished = true
    subscription = nil
  }
}

struct StackDepthCase: Sendable {
  let name: String
  /// The number of values the subscriber must get; `nil` when it may vary.
  let count: Int?
  let run: @Sendable (OneAtATimeSubscriber) -> Void
}

enum StackDepthTable {
  static let size = 100_000
  static var values: Publishers.Sequence<Range<Int>, Never> { (0..<size).publisher }

  static func op<P: Publisher>(
    _ name: String,
    count: Int? = size,
    _ build: @escaping @Sendable () -> P
  ) -> StackDepthCase where P.Output == Int, P.Failure == Never {
    StackDepthCase(name: name, count: count) { build().subscribe($0) }
  }

  /// A time-based operator on a virtual clock: subscribes, then runs the clock until nothing
  /// is scheduled.
  static func timed<P: Publisher>(
    _ name: String,
    count: Int? = size,
    _ build: @escaping @Sendable (TestSchedulerOf<DispatchQueue>) -> P
  ) -> StackDepthCase where P.Output == Int, P.Failure == Never {
    StackDepthCase(name: name, count: count) { subscriber in
      let scheduler = DispatchQueue.test
      build(scheduler).subscribe(subscriber)
      _ = scheduler.run(limit: 10 * size)
    }
  }

  static let cases: [StackDepthCase] = [
    // Publishers that deliver what they hold from inside `request(_:)`.
    op("sequence") { values },
    op("Record") { Record(output: Array(0..<size), completion: .finished) },
    op("ReplaySubject (kept values)") {
      let subject = ReplaySubject<Int, Never>(bufferSize: size)
      for value in 0..<size { subject.send(value) }
      subject.send(completion: .finished)
      return subject
    },
    op("Deferred") { Deferred { values } },
    op("AnyPublisher") { values.eraseToAnyPublisher() },
    op("share(replay:) of a finished upstream") {
      let shared = values.share(replay: size)
      let early = shared.sink { _ in }  // runs the upstream to its end into the replay
      early.cancel()
      return shared
    },
    // Operators over a synchronous upstream.
    op("map") { values.map { $0 + 1 } },
    op("tryMap") { values.tryMap { $0 + 1 }.replaceError(with: 0) },
    op("filter") { values.filter { _ in true } },
    op("filter(dropping half)", count: size / 2) { values.filter { $0 % 2 == 0 } },
    op("compactMap") { values.compactMap { $0 } },
    op("scan") { values.scan(0) { _, value in value } },
    op("removeDuplicates") { values.removeDuplicates() },
    op("handleEvents") { values.handleEvents(receiveOutput: { _ in }) },
    op("prefix") { (0..<(size * 2)).publisher.prefix(size) },
    op("prefix(while:)") { values.prefix { _ in true } },
    op("dropFirst") { (0..<(size + 1)).publisher.dropFirst() },
    op("drop(while:)") { values.drop { _ in false } },
    op("output(in:)") { (0..<(size * 2)).publisher.output(in: 0..<size) },
    op("replaceEmpty") { values.replaceEmpty(with: 0) },
    op("flatMap(Just)") { values.flatMap { Just($0) } },
    op("flatMap(Just, maxPublishers: 1)") { values.flatMap(maxPublishers: .max(1)) { Just($0) } },
    op("switchToLatest(Just)") { values.map { Just($0) }.switchToLatest() },
    op("merge") { values.merge(with: Empty()) },
    op("merge(two sequences)", count: size * 2) { values.merge(with: values) },
    op("zip") { values.zip(values).map { $0.0 } },
    op("combineLatest") { Just(0).combineLatest(values).map { $0.1 } },
    op("append") { values.append(Empty()) },
    op("prepend") { values.prepend(Empty()) },
    op("catch") { values.setFailureType(to: TestError.self).catch { _ in Empty() } },
    op("retry") { values.setFailureType(to: TestError.self).retry(1).assertNoFailure() },
    // `.byRequest` asks for everything at once: a buffer that holds every value.
    op("buffer(byRequest)") {
      values.buffer(size: size, prefetch: .byRequest, whenFull: .dropNewest)
    },
    op("buffer(keepFull)") { values.buffer(size: 8, prefetch: .keepFull, whenFull: .dropNewest) },
    op("receive(on: immediate)") { values.receive(on: ImmediateScheduler.shared) },
    op("delay(immediate)") { values.delay(for: .zero, scheduler: ImmediateScheduler.shared) },
    timed("delay") { values.delay(for: .seconds(1), scheduler: $0) },
    timed("timeout") { values.timeout(.seconds(1), scheduler: $0) },
    timed("collect(.byTimeOrCount)") {
      values.collect(.byTimeOrCount($0, .seconds(1), 1)).map { $0[0] }
    },
    op("subscribe(on: immediate)") { values.subscribe(on: ImmediateScheduler.shared) },
    op("collect(1)") { values.collect(1).map { $0[0] } },
    op("map(keyPath)") { values.map(\.self) },
    // Synchronous failures, retried 100,000 times.
    op("retry(count) of Fail", count: 1) {
      Fail<Int, TestError>(error: TestError()).retry(size).replaceError(with: 0)
    },
    op("retry(on:intervals:) zero intervals", count: 1) {
      Fail<Int, TestError>(error: TestError())
        .retry(on: ImmediateScheduler.shared, intervals: Array(repeating: 0, count: size))
        .replaceError(with: 0)
    },
    op("retry(on:intervals:) immediate scheduler", count: 1) {
      Fail<Int, TestError>(error: TestError())
        .retry(on: ImmediateScheduler.shared, intervals: Array(repeating: 1, count: size))
        .replaceError(with: 0)
    },
  ]
}
