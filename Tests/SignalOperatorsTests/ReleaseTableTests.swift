import Dispatch
import Foundation
import SignalOperators
import StreamCombineExt
import StreamConbini
import StreamCore
import StreamSnail
import StreamSwiftySignals
import StreamTesting
import Testing

/// Release after completion and after cancel, for every operator and subject.
///
/// Each case builds an operator over the environment's `TestPublisher`s and subscribes a
/// ``KeepingSubscriber``, which, like most hand-written subscribers, keeps its subscription
/// strongly for ever. An operator that keeps its subscriber after it ended makes a cycle
/// (subscriber -> subscription -> subscriber) and both leak; the tests see it through `weak`
/// references. `everyOperatorMethod_hasACaseOrAnExclusion` scans the operator modules' sources for the
/// methods of `extension Publisher`, so a new operator without a case here fails that test.
@Suite(.timeLimit(.minutes(5))) struct ReleaseTableTests {
  @Test(arguments: ReleaseTable.cases)
  func afterCompletion_subscriberAndSubscriptionReleased(_ testCase: ReleaseCase) {
    let environment = ReleaseEnvironment()
    weak var subscriber: AnyObject?
    weak var subscription: AnyObject?
    var keepAlive: Any?
    do {
      let attached = testCase.attach(environment)
      subscriber = attached.subscriber
      subscription = attached.subscription()
      keepAlive = attached.keepAlive
      #expect(subscription != nil, "\(testCase.name): no subscription")
      environment.finish()
      #expect(attached.completed(), "\(testCase.name): did not complete")
    }
    #expect(subscriber == nil, "\(testCase.name): subscriber leaked after completion")
    #expect(subscription == nil, "\(testCase.name): subscription leaked after completion")
    withExtendedLifetime(keepAlive) {}
  }

  @Test(arguments: ReleaseTable.cases)
  func afterCancel_subscriberAndSubscriptionReleased(_ testCase: ReleaseCase) {
    let environment = ReleaseEnvironment()
    weak var subscriber: AnyObject?
    weak var subscription: AnyObject?
    var keepAlive: Any?
    do {
      let attached = testCase.attach(environment)
      subscriber = attached.subscriber
      subscription = attached.subscription()
      keepAlive = attached.keepAlive
      #expect(subscription != nil, "\(testCase.name): no subscription")
      environment.sendValues()
      attached.cancel()
      environment.settle()
    }
    #expect(subscriber == nil, "\(testCase.name): subscriber leaked after cancel")
    #expect(subscription == nil, "\(testCase.name): subscription leaked after cancel")
    withExtendedLifetime(keepAlive) {}
  }

  @Test func everyOperatorMethod_hasACaseOrAnExclusion() throws {
    let declared = try ReleaseTable.declaredOperatorMethods()
    #expect(declared.count > 50, "the source scan found too few methods: \(declared.sorted())")
    let covered = Set(ReleaseTable.cases.map(\.method))
    let excluded = Set(ReleaseTable.excluded.keys)
    let missing = declared.subtracting(covered).subtracting(excluded)
    #expect(missing.isEmpty, "operators without a release case: \(missing.sorted())")
    let stale = covered.union(excluded).subtracting(declared).subtracting(ReleaseTable.nonOperators)
    #expect(stale.isEmpty, "cases naming no `extension Publisher` method: \(stale.sorted())")
    #expect(covered.isDisjoint(with: excluded))
  }
}

struct ReleaseFailure: Error, Equatable {}

/// What the cases subscribe to, and how a case's chain is made to end.
final class ReleaseEnvironment: @unchecked Sendable {
  let upstream = TestPublisher<Int, ReleaseFailure>()
  let other = TestPublisher<Int, ReleaseFailure>()
  let never = TestPublisher<Int, Never>()
  let scheduler = TestScheduler()
  let queue = DispatchQueue(label: "ReleaseTableTests")
  /// Extra ends a case needs (a subject to complete); run by ``finish()``.
  private let extraFinishers = LockedState<[() -> Void]>([])

  func alsoFinish(_ action: @escaping () -> Void) {
    extraFinishers.withLock { $0.append(action) }
  }

  func sendValues() {
    upstream.send(1)
    other.send(1)
    never.send(1)
    settle()
  }

  /// Sends a value on each upstream, then finishes them all and lets time pass.
  func finish() {
    sendValues()
    upstream.send(completion: .finished)
    other.send(completion: .finished)
    never.send(completion: .finished)
    for action in extraFinishers.withLock({ $0 }) { action() }
    settle()
  }

  /// Lets every scheduled action and queued block run.
  func settle() {
    scheduler.advance(by: 1_000_000)
    queue.sync {}
    scheduler.advance(by: 1_000_000)
  }
}

/// A subscriber that keeps its subscription strongly for ever, even after completion or cancel.
final class KeepingSubscriber<Input, Failure: Error>: Subscriber, @unchecked Sendable {
  private struct Stored {
    var subscription: (any Subscription)?
    var completed = false
  }
  private let stored = LockedState(Stored())

  func receive(subscription: any Subscription) {
    stored.withLock { $0.subscription = subscription }
    subscription.request(.unlimited)
  }

  func receive(_ input: Input) -> Subscribers.Demand { .none }

  func receive(completion: Subscribers.Completion<Failure>) {
    stored.withLock { $0.completed = true }
  }

  var subscription: (any Subscription)? { stored.withLock { $0.subscription } }

  var completed: Bool { stored.withLock { $0.completed } }

  /// Cancels, and keeps the subscription all the same.
  func cancel() { subscription?.cancel() }
}

/// The object behind `subscription`: the subscription itself, or, for `autoconnect()`'s, a struct
/// shaped as Combine's, its `upstreamSubscription` field (the object that leads to its
/// subscriber).
func subscriptionObject(_ subscription: (any Subscription)?) -> AnyObject? {
  guard let subscription else { return nil }
  if type(of: subscription) is AnyClass { return subscription as AnyObject }
  return Mirror(reflecting: subscription).children
    .first { $0.label == "upstreamSubscription" }
    .map { $0.value as AnyObject }
}

/// One subscribed chain, seen from the test.
struct Attached {
  let subscriber: AnyObject
  let subscription: () -> AnyObject?
  let completed: () -> Bool
  let cancel: () -> Void
  let keepAlive: Any?
}

struct ReleaseCase: Sendable, CustomTestStringConvertible {
  /// The display name, `method` or `method(label:)`.
  let name: String
  let attach: @Sendable (ReleaseEnvironment) -> Attached

  /// The method this case covers: the name up to the first `(` or space.
  var method: String {
    String(name.prefix { $0 != "(" && $0 != " " })
  }

  var testDescription: String { name }
}

enum ReleaseTable {
  typealias Env = ReleaseEnvironment

  /// A case that subscribes a ``KeepingSubscriber`` to the publisher `build` makes.
  static func op<P: Publisher>(
    _ name: String,
    _ build: @escaping @Sendable (Env) -> P
  ) -> ReleaseCase {
    ReleaseCase(name: name) { env in
      let attached = attach(build(env), keepAlive: nil)
      env.scheduler.advance()  // subscribe(on:) subscribes on the scheduler
      return attached
    }
  }

  /// A case for a connectable publisher: subscribes, then connects and keeps the connection.
  static func connectable<P: ConnectablePublisher>(
    _ name: String,
    _ build: @escaping @Sendable (Env) -> P
  ) -> ReleaseCase {
    ReleaseCase(name: name) { env in
      let publisher = build(env)
      let keeper = KeepingSubscriber<P.Output, P.Failure>()
      publisher.subscribe(keeper)
      let connection = publisher.connect()
      return attached(keeper, keepAlive: (publisher, connection))
    }
  }

  static func attach<P: Publisher>(_ publisher: P, keepAlive: Any?) -> Attached {
    let keeper = KeepingSubscriber<P.Output, P.Failure>()
    publisher.subscribe(keeper)
    return attached(keeper, keepAlive: keepAlive)
  }

  static func attached<Input, Failure>(
    _ keeper: KeepingSubscriber<Input, Failure>,
    keepAlive: Any?
  ) -> Attached {
    Attached(
      subscriber: keeper,
      subscription: { [weak keeper] in subscriptionObject(keeper?.subscription) },
      completed: { [weak keeper] in keeper?.completed ?? false },
      cancel: { [weak keeper] in keeper?.cancel() },
      keepAlive: keepAlive
    )
  }

  /// A subject case: the subject is fed by `upstream` and, for the cancel test, also completes
  /// through ``ReleaseEnvironment/finish()``.
  static func subject<S: Subject>(
    _ name: String,
    _ make: @escaping @Sendable () -> S
  ) -> ReleaseCase where S.Output == Int, S.Failure == ReleaseFailure {
    ReleaseCase(name: name) { env in
      let subject = make()
      let feed = env.upstream.subscribe(subject)
      return attach(subject, keepAlive: (subject, feed))
    }
  }

  /// A subject case with no upstream: completed by `send(completion:)`.
  static func standaloneSubject<S: Subject>(
    _ name: String,
    _ make: @escaping @Sendable () -> S
  ) -> ReleaseCase where S.Output == Int, S.Failure == ReleaseFailure {
    ReleaseCase(name: name) { env in
      let subject = make()
      env.alsoFinish { [weak subject] in subject?.send(completion: .finished) }
      return attach(subject, keepAlive: subject)
    }
  }

  static let cases: [ReleaseCase] = [
    // Mapping and filtering.
    op("map") { $0.upstream.map { $0 + 1 } },
    op("map(keyPath)") { $0.upstream.map(\.bitWidth) },
    op("map(keyPath, keyPath)") { $0.upstream.map(\.bitWidth, \.nonzeroBitCount) },
    op("tryMap") { $0.upstream.tryMap { $0 + 1 } },
    op("mapError") { $0.upstream.mapError { $0 as any Error } },
    op("replaceNil") { $0.upstream.map { Optional($0) }.replaceNil(with: 0) },
    op("compactMap") { $0.upstream.compactMap { $0 } },
    op("tryCompactMap") { $0.upstream.tryCompactMap { $0 } },
    op("filter") { $0.upstream.filter { _ in true } },
    op("tryFilter") { $0.upstream.tryFilter { _ in true } },
    op("removeDuplicates") { $0.upstream.removeDuplicates() },
    op("tryRemoveDuplicates") { $0.upstream.tryRemoveDuplicates { $0 == $1 } },
    op("scan") { $0.upstream.scan(0, +) },
    op("tryScan") { $0.upstream.tryScan(0, +) },
    op("setFailureType") { $0.never.setFailureType(to: ReleaseFailure.self) },
    op("replaceEmpty") { $0.upstream.replaceEmpty(with: 0) },
    op("replaceError") { $0.upstream.replaceError(with: 0) },
    op("assertNoFailure") { $0.upstream.assertNoFailure() },
    op("ignoreOutput") { $0.upstream.ignoreOutput() },
    op("decode") {
      $0.upstream.map { Data("\($0)".utf8) }.decode(type: Int.self, decoder: JSONDecoder())
    },
    op("encode") { $0.upstream.encode(encoder: JSONEncoder()) },
    // Reducing.
    op("collect") { $0.upstream.collect() },
    op("collect(count)") { $0.upstream.collect(2) },
    op("collect(byTime)") { $0.upstream.collect(.byTime($0.scheduler, 10)) },
    op("collect(byTimeOrCount)") { $0.upstream.collect(.byTimeOrCount($0.scheduler, 10, 2)) },
    op("reduce") { $0.upstream.reduce(0, +) },
    op("tryReduce") { $0.upstream.tryReduce(0, +) },
    op("count") { $0.upstream.count() },
    op("max") { $0.upstream.max() },
    op("min") { $0.upstream.min() },
    op("tryMax") { $0.upstream.tryMax { $0 < $1 } },
    op("tryMin") { $0.upstream.tryMin { $0 < $1 } },
    op("allSatisfy") { $0.upstream.allSatisfy { $0 < 10 } },
    op("tryAllSatisfy") { $0.upstream.tryAllSatisfy { $0 < 10 } },
    op("contains") { $0.upstream.contains(5) },
    op("contains(where:)") { $0.upstream.contains { $0 == 5 } },
    op("tryContains") { $0.upstream.tryContains { $0 == 5 } },
    // Selecting.
    op("first") { $0.upstream.first() },
    op("first(where:)") { $0.upstream.first { $0 > 5 } },
    op("tryFirst") { $0.upstream.tryFirst { $0 > 5 } },
    op("last") { $0.upstream.last() },
    op("last(where:)") { $0.upstream.last { $0 > 0 } },
    op("tryLast") { $0.upstream.tryLast { $0 > 0 } },
    op("output(at:)") { $0.upstream.output(at: 3) },
    op("output(in:)") { $0.upstream.output(in: 2...4) },
    op("prefix") { $0.upstream.prefix(3) },
    op("prefix(while:)") { $0.upstream.prefix { $0 < 10 } },
    op("tryPrefix") { $0.upstream.tryPrefix { $0 < 10 } },
    op("prefix(untilOutputFrom:)") { $0.upstream.prefix(untilOutputFrom: $0.never) },
    op("dropFirst") { $0.upstream.dropFirst() },
    op("drop(while:)") { $0.upstream.drop { $0 < 0 } },
    op("tryDrop") { $0.upstream.tryDrop { $0 < 0 } },
    op("drop(untilOutputFrom:)") { $0.upstream.drop(untilOutputFrom: $0.other) },
    // Combining.
    op("merge") { $0.upstream.merge(with: $0.other) },
    op("merge(3)") { $0.upstream.merge(with: $0.other, $0.other) },
    op("merge(4)") { $0.upstream.merge(with: $0.other, $0.other, $0.other) },
    op("merge(5)") { $0.upstream.merge(with: $0.other, $0.other, $0.other, $0.other) },
    op("merge(6)") { env in
      env.upstream.merge(with: env.other, env.other, env.other, env.other, env.other)
    },
    op("merge(7)") { env in
      env.upstream.merge(with: env.other, env.other, env.other, env.other, env.other, env.other)
    },
    op("merge(8)") { env in
      env.upstream.merge(
        with: env.other,
        env.other,
        env.other,
        env.other,
        env.other,
        env.other,
        env.other
      )
    },
    op("merge(MergeMany)") { Publishers.MergeMany($0.upstream, $0.other, $0.other) },
    op("zip") { $0.upstream.zip($0.other) },
    op("zip(3)") { $0.upstream.zip($0.other, $0.other) },
    op("zip(4)") { $0.upstream.zip($0.other, $0.other, $0.other) },
    op("zip(transform)") { $0.upstream.zip($0.other) { $0 + $1 } },
    op("combineLatest") { $0.upstream.combineLatest($0.other) },
    op("combineLatest(3)") { $0.upstream.combineLatest($0.other, $0.other) },
    op("combineLatest(4)") { $0.upstream.combineLatest($0.other, $0.other, $0.other) },
    op("combineLatest(transform)") { $0.upstream.combineLatest($0.other) { $0 + $1 } },
    op("append") { $0.upstream.append(7, 8) },
    op("append(publisher)") { $0.upstream.append($0.other) },
    op("prepend") { $0.upstream.prepend(7, 8) },
    op("prepend(publisher)") { $0.upstream.prepend($0.other) },
    op("flatMap") { $0.upstream.flatMap { Just($0).setFailureType(to: ReleaseFailure.self) } },
    op("flatMap(maxPublishers)") { env in
      env.upstream.flatMap(maxPublishers: .max(1)) { _ in env.other }
    },
    op("flatMap(never upstream)") { env in env.never.flatMap { _ in env.other } },
    op("switchToLatest") { env in env.upstream.map { _ in env.other }.switchToLatest() },
    op("switchToLatest(never inner)") { env in
      env.upstream.map { _ in env.never }.switchToLatest()
    },
    op("then") { env in env.upstream.then { env.other } },
    op("then(do:)") { $0.upstream.then(do: { _ in }) },
    op("then(call:on:)") { $0.upstream.then(call: ReleaseTarget.take, on: ReleaseTarget.shared) },
    // Errors and retries.
    op("catch") { $0.upstream.catch { _ in Just(0) } },
    op("tryCatch") { $0.upstream.tryCatch { _ in Just(0) } },
    op("retry") { $0.upstream.retry(3) },
    op("retry(on:intervals:)") { $0.upstream.retry(on: $0.scheduler, intervals: [0, 1]) },
    // Time.
    op("debounce") { $0.upstream.debounce(for: 5, scheduler: $0.scheduler) },
    op("debounce(timeout:)") {
      $0.upstream.debounce(timeout: .seconds(1), scheduler: $0.scheduler)
    },
    op("debounce(measurement)") {
      $0.upstream.debounce(
        timeout: Measurement(value: 1, unit: UnitDuration.seconds),
        scheduler: $0.scheduler
      )
    },
    op("throttle") { $0.upstream.throttle(for: 5, scheduler: $0.scheduler, latest: true) },
    op("throttle(pause:)") { $0.upstream.throttle(pause: .seconds(1), scheduler: $0.scheduler) },
    op("throttle(measurement)") {
      $0.upstream.throttle(
        pause: Measurement(value: 1, unit: UnitDuration.seconds),
        scheduler: $0.scheduler
      )
    },
    op("delay") { $0.upstream.delay(for: 5, scheduler: $0.scheduler) },
    op("timeout") { $0.upstream.timeout(50, scheduler: $0.scheduler) },
    op("measureInterval") { $0.upstream.measureInterval(using: $0.scheduler) },
    op("sample") { $0.upstream.sample(every: 5, scheduler: $0.scheduler) },
    op("receive(on:)") { $0.upstream.receive(on: $0.scheduler) },
    // Snail's subscribe(queue:onNext:onError:onDone:) shares the name; it is a terminal subscriber.
    op("subscribe(on:)") { $0.upstream.subscribe(on: $0.scheduler) },
    op("dispatch") { $0.upstream.dispatch(to: $0.queue) },
    // Side effects and debugging.
    op("handleEvents") { $0.upstream.handleEvents(receiveOutput: { _ in }) },
    op("handleEnd") { $0.upstream.handleEnd { _ in } },
    op("breakpoint") { $0.upstream.breakpoint() },
    op("breakpointOnError") { $0.upstream.breakpointOnError() },
    op("print") { $0.upstream.print("release", to: ReleaseSilentStream()) },
    // Buffering and sharing.
    op("buffer") { $0.upstream.buffer(size: 4, prefetch: .byRequest, whenFull: .dropOldest) },
    op("buffer(keepFull)") {
      $0.upstream.buffer(size: 4, prefetch: .keepFull, whenFull: .dropNewest)
    },
    op("share") { $0.upstream.share() },
    op("autoconnect") { $0.never.makeConnectable().autoconnect() },
    connectable("multicast") { $0.upstream.multicast { PassthroughSubject() } },
    connectable("multicast(subject:)") {
      $0.upstream.multicast(subject: ReplaySubject(bufferSize: 2))
    },
    connectable("makeConnectable") { $0.never.makeConnectable() },
    // Aliases (Snail, SwiftySignals).
    op("skip") { $0.upstream.skip(first: 1) },
    op("take") { $0.upstream.take(first: 3) },
    op("discard") { $0.upstream.discard(first: 1) },
    op("distinct") { $0.upstream.distinct() },
    // Subjects: fed by an upstream, and standalone.
    subject("PassthroughSubject") { PassthroughSubject<Int, ReleaseFailure>() },
    subject("CurrentValueSubject") { CurrentValueSubject<Int, ReleaseFailure>(0) },
    subject("ReplaySubject") { ReplaySubject<Int, ReleaseFailure>(bufferSize: 2) },
    standaloneSubject("PassthroughSubject standalone") {
      PassthroughSubject<Int, ReleaseFailure>()
    },
    standaloneSubject("CurrentValueSubject standalone") {
      CurrentValueSubject<Int, ReleaseFailure>(0)
    },
    standaloneSubject("ReplaySubject standalone") {
      ReplaySubject<Int, ReleaseFailure>(bufferSize: 2)
    },
    // CombineExt.
    op("materialize") { $0.upstream.materialize() },
    op("dematerialize") { $0.upstream.materialize().dematerialize() },
    op("failures") { $0.upstream.materialize().failures() },
    op("mapToResult") { $0.upstream.mapToResult() },
    op("setOutputType") { $0.upstream.ignoreOutput().setOutputType(to: Int.self) },
    op("ignoreOutput(setOutputType:)") { $0.upstream.ignoreOutput(setOutputType: Int.self) },
    op("mapToValue") { $0.upstream.mapToValue("x") },
    op("mapToVoid") { $0.upstream.mapToVoid() },
    op("toggle") { $0.upstream.map { $0 > 0 }.toggle() },
    op("enumerated") { $0.upstream.enumerated() },
    op("filterMany") { $0.upstream.map { [$0] }.filterMany { $0 > 0 } },
    op("mapMany") { $0.upstream.map { [$0] }.mapMany { $0 + 1 } },
    op("nwise") { $0.upstream.nwise(2) },
    op("pairwise") { $0.upstream.pairwise() },
    op("removeAllDuplicates") { $0.upstream.removeAllDuplicates() },
    op("removeAllDuplicates(by:)") { $0.upstream.removeAllDuplicates { $0 == $1 } },
    op("ignoreFailure") { $0.upstream.ignoreFailure() },
    op("ignoreFailure(setFailureType:)") {
      $0.upstream.ignoreFailure(setFailureType: ReleaseFailure.self)
    },
    op("partition") { $0.upstream.partition { $0 > 0 }.nonMatches },
    op("prefix(while:behavior:)") {
      $0.upstream.prefix(while: { $0 < 10 }, behavior: .inclusive)
    },
    op("share(replay:)") { $0.upstream.share(replay: 2) },
    op("prefix(duration:)") { $0.upstream.prefix(duration: 10, on: $0.scheduler) },
    op("retryWhen") { environment in environment.upstream.retryWhen { _ in environment.other } },
    op("retry(when:)") { environment in
      environment.upstream.retry(when: { $0.map { _ in () } })
    },
    op("withLatestFrom") { $0.upstream.withLatestFrom($0.other) },
    op("withLatestFrom(resultSelector:)") { $0.upstream.withLatestFrom($0.other) { $0 + $1 } },
    op("withLatestFrom(2)") { $0.upstream.withLatestFrom($0.other, $0.other) },
    op("withLatestFrom(3)") { $0.upstream.withLatestFrom($0.other, $0.other, $0.other) },
    op("amb") { $0.upstream.amb($0.other) },
    op("amb(with:)") { $0.upstream.amb(with: $0.other, $0.other) },
    op("combineLatest(with:)") { $0.upstream.combineLatest(with: $0.other, $0.other) },
    op("zip(with:)") { $0.upstream.zip(with: $0.other, $0.other) },
    op("merge(with: collection)") { $0.upstream.merge(with: [$0.other, $0.other]) },
    op("flatMapLatest") { env in env.upstream.flatMapLatest { _ in env.other } },
    op("flatMapFirst") { env in env.upstream.flatMapFirst { _ in env.other } },
  ]

  /// Names of cases that are not `extension Publisher` methods.
  static let nonOperators: Set<String> = [
    "PassthroughSubject", "CurrentValueSubject", "ReplaySubject",
  ]

  /// `extension Publisher` methods with no case, and why.
  static let excluded: [String: String] = [
    "sink": "a terminal subscriber (FixedSink, GraduatedSink), not an operator",
    "assign": "a terminal subscriber (AssignWeak; CombineExt's assign(to:on:ownership:) and "
      + "assign(to:on:and:on:) are sinks), not an operator",
    "invoke": "a terminal subscriber (TargetSink), not an operator",
    "result": "a terminal subscriber (ResultSink), not an operator",
    "forward": "a terminal subscriber (Snail's, sending into a subject), not an operator",
    "noDispatch": "receive(on:) a private serial queue the table can't wait for; the dispatch "
      + "case covers the same operator",
    "values": "an AsyncSequence bridge, not a publisher (CombineExt's values() extends "
      + "Publishers.Materialize and AnyPublisher, covered by ValuesTests)",
    "singleValue": "blocks the caller until a value; not a publisher",
    "waitForValue": "blocks the caller until a value; not a publisher",
    "block": "blocks the caller until a value; not a publisher",
  ]

  /// The methods declared in `extension Publisher` / `extension ConnectablePublisher` blocks of
  /// the operator modules' sources.
  static func declaredOperatorMethods() throws -> Set<String> {
    let root = URL(fileURLWithPath: #filePath)
      .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    var names = Set<String>()
    // Combine's operators, and the other libraries' operators built on them.
    for module in [
      "SignalOperators", "StreamCombineExt", "StreamConbini", "StreamConcurrency", "StreamSnail",
      "StreamSwiftySignals",
    ] {
      let sources = root.appendingPathComponent("Sources/\(module)")
      guard let files = FileManager.default.enumerator(atPath: sources.path) else { continue }
      try scanOperatorMethods(in: files, at: sources, into: &names)
    }
    return names
  }

  /// Adds the names of the methods that `files` declare in `extension Publisher` blocks.
  private static func scanOperatorMethods(
    in files: FileManager.DirectoryEnumerator,
    at sources: URL,
    into names: inout Set<String>
  ) throws {
    for case let file as String in files where file.hasSuffix(".swift") {
      let text = try String(
        contentsOf: sources.appendingPathComponent(file),
        encoding: .utf8
      )
      var inPublisherExtension = false
      for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
        if line.hasPrefix("extension ") {
          inPublisherExtension =
            line.hasPrefix("extension Publisher ") || line.hasPrefix("extension Publisher{")
            || line.hasPrefix("extension ConnectablePublisher ")
        } else if line.hasPrefix("}") {
          inPublisherExtension = false
        } else if inPublisherExtension, line.hasPrefix("  public func ") {
          let rest = line.dropFirst("  public func ".count).drop { $0 == "`" }
          names.insert(String(rest.prefix { $0.isLetter || $0.isNumber || $0 == "_" }))
        }
      }
    }
  }
}

/// The target of `then(call:on:)`.
final class ReleaseTarget: Sendable {
  static let shared = ReleaseTarget()
  func take(_ value: Int) {}
}

/// A stream for `print(_:to:)` that drops the text.
struct ReleaseSilentStream: TextOutputStream {
  mutating func write(_ string: String) {}
}
