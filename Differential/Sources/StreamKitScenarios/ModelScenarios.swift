// Scenarios for what `Scenarios.swift` does not cover, written once and compiled twice like it
// (Sources/OpenCombineScenarios/ModelScenarios.swift is a symlink to this file):
//
//   - reference models of the operators OpenCombine lacks (`merge`, `MergeMany`, `combineLatest`):
//     small, plain Swift subscriptions written from Apple's documentation of `Publishers.Merge`
//     and `Publishers.CombineLatest`, used on the OpenCombine side in place of the operator (the
//     StreamKit side runs StreamKit's operator). Where the documentation is silent the model
//     decides; README.md, "Reference models", lists those decisions. Only the events and traps
//     are compared for them: the model has no Combine descriptions, mirrors or life cycle to
//     compare with.
//   - publishers both libraries have: `Future`, `Record`, `@Published`, `encode`/`decode`
//     (JSON), `map` by one, two and three key paths, and `combineIdentifier` sharing.

import DiffModel
import Foundation

#if OPENCOMBINE
import OpenCombine
import OpenCombineFoundation
#else
import FutureKit
import PropertyWrappers
import SignalOperators
import StreamCore
#endif

// MARK: - Reference model: merge

/// Combine's `Publishers.Merge`/`Merge3`/`MergeMany` as documented: "delivering an interleaved
/// sequence of elements", "emits an event when any upstream publisher emits an event". Where the
/// documentation is silent (README.md, "Reference models"): every request goes to every upstream
/// that has not finished; the demand a value's `receive(_:)` returns is added to the downstream's
/// demand and goes back only to the upstream that sent it, as its `receive(_:)` returns
/// (Combine's pattern for its multi-input operators); for a queued value delivered later, it is
/// added to the downstream's demand only; a value beyond the downstream's demand waits in a queue
/// (first in, first out) and goes down when demand arrives; a request made once the demand is
/// unlimited goes nowhere (it changes nothing); the merge finishes once every upstream has
/// finished and the queue is empty; the first failure cancels the others and fails at once,
/// dropping the queue; after a cancel nothing goes anywhere.
final class ModelMerge<Upstream: Publisher>: Publisher {
  typealias Output = Upstream.Output
  typealias Failure = Upstream.Failure
  let upstreams: [Upstream]
  init(_ upstreams: [Upstream]) { self.upstreams = upstreams }

  func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
    let subscription = ModelMergeSubscription(
      downstream: AnySubscriber(subscriber),
      count: upstreams.count
    )
    subscriber.receive(subscription: subscription)
    for (i, upstream) in upstreams.enumerated() {
      upstream.subscribe(ModelSide(index: i, parent: subscription))
    }
  }
}

/// What a model subscription receives from upstream `index`.
protocol ModelParent: AnyObject {
  associatedtype Input
  associatedtype Failure: Error
  func subscribed(_ subscription: any Subscription, index: Int)
  func received(_ input: Input, index: Int) -> Subscribers.Demand
  func completed(_ completion: Subscribers.Completion<Failure>, index: Int)
}

/// The subscriber a model gives upstream `index`.
final class ModelSide<Parent: ModelParent>: Subscriber {
  typealias Input = Parent.Input
  typealias Failure = Parent.Failure
  let index: Int
  let parent: Parent
  init(index: Int, parent: Parent) {
    self.index = index
    self.parent = parent
  }
  func receive(subscription: any Subscription) { parent.subscribed(subscription, index: index) }
  func receive(_ input: Input) -> Subscribers.Demand { parent.received(input, index: index) }
  func receive(completion: Subscribers.Completion<Failure>) {
    parent.completed(completion, index: index)
  }
}

final class ModelMergeSubscription<Output, Failure: Error>: Subscription, ModelParent {
  typealias Input = Output
  var downstream: AnySubscriber<Output, Failure>?
  var upstreams: [(any Subscription)?]
  var finished: [Bool]
  var demand: Subscribers.Demand = .none
  var queue: [Output] = []
  var delivering = false

  init(downstream: AnySubscriber<Output, Failure>, count: Int) {
    self.downstream = downstream
    upstreams = Array(repeating: nil, count: count)
    finished = Array(repeating: false, count: count)
  }

  func subscribed(_ subscription: any Subscription, index: Int) {
    guard downstream != nil, upstreams[index] == nil, !finished[index] else {
      subscription.cancel()
      return
    }
    upstreams[index] = subscription
    if demand > 0 { subscription.request(demand) }
  }

  func request(_ d: Subscribers.Demand) {
    // Once the demand is unlimited a request changes nothing, and none goes upstream; nor does
    // `request(.none)`, which Combine's `merge` ignores (Docs/StreamCore.md).
    guard downstream != nil, demand != .unlimited, d > .none else { return }
    demand += d
    drain()
    guard downstream != nil else { return }
    for (i, upstream) in upstreams.enumerated() where !finished[i] { upstream?.request(d) }
  }

  /// Sends queued values while there is demand, then `.finished` if every upstream finished.
  func drain() {
    guard !delivering else { return }
    delivering = true
    defer { delivering = false }
    while let downstream, demand > 0, !queue.isEmpty {
      demand -= 1
      let more = downstream.receive(queue.removeFirst())
      // Not from inside an upstream's `receive(_:)`: no upstream to give it back to.
      if more > 0 { demand += more }
    }
    if let downstream, queue.isEmpty, finished.allSatisfy({ $0 }) {
      self.downstream = nil
      downstream.receive(completion: .finished)
    }
  }

  func received(_ input: Output, index: Int) -> Subscribers.Demand {
    guard let downstream, !finished[index] else { return .none }
    guard demand > 0, queue.isEmpty, !delivering else {
      queue.append(input)
      return .none
    }
    demand -= 1
    delivering = true
    let more = downstream.receive(input)
    delivering = false
    // With unlimited demand, more changes nothing: nothing goes upstream.
    guard more > 0, self.downstream != nil, demand != .unlimited else {
      drain()
      return .none
    }
    demand += more
    drain()
    return more  // to this upstream only; the others are not asked for it
  }

  func completed(_ completion: Subscribers.Completion<Failure>, index: Int) {
    guard let downstream, !finished[index] else { return }
    finished[index] = true
    upstreams[index] = nil
    switch completion {
    case .finished:
      drain()
    case .failure:
      let others = upstreams
      self.downstream = nil
      queue = []
      for upstream in others { upstream?.cancel() }
      downstream.receive(completion: completion)
    }
  }

  func cancel() {
    guard downstream != nil else { return }
    downstream = nil
    queue = []
    let others = upstreams
    upstreams = upstreams.map { _ in nil }
    for upstream in others { upstream?.cancel() }
  }
}

// MARK: - Reference model: combineLatest

/// Combine's `Publishers.CombineLatest`/`CombineLatest3` as documented for `combineLatest(_:)`:
/// no element until every upstream has published one; then, on each upstream element, the tuple
/// of every upstream's most recent element; "passes through any requests to all upstream
/// publishers" while "only sending the request amount downstream"; with limited demand it drops
/// values, holding the most recent one per upstream ("a buffer size of 1 for each upstream"); a
/// failure of any upstream fails it; "All upstream publishers need to finish for this publisher
/// to finish". Where the documentation is silent (README.md, "Reference models"): the held tuple
/// goes down when demand arrives (if an upstream sent since the last one); `receive(_:)` returns
/// `.none` for a value that makes no tuple; the demand the downstream returns for a tuple is
/// added to its demand and goes back only to the upstream whose value made it, as that
/// upstream's `receive(_:)` return value (what real Combine does, Apple developer forums thread
/// 709494: the other upstreams are not asked), and to no upstream for the held tuple a request
/// sends; a request made once the demand is unlimited goes nowhere; the failure cancels the other
/// upstreams.
final class ModelCombineLatest<Upstream: Publisher>: Publisher {
  typealias Output = [Upstream.Output]
  typealias Failure = Upstream.Failure
  let upstreams: [Upstream]
  let count: Int
  init(_ upstreams: [Upstream]) {
    self.upstreams = upstreams
    count = upstreams.count
  }

  func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
    let subscription = ModelCombineLatestSubscription(
      downstream: AnySubscriber(subscriber),
      count: count
    )
    subscriber.receive(subscription: subscription)
    for (i, upstream) in upstreams.enumerated() {
      upstream.subscribe(ModelSide(index: i, parent: subscription))
    }
  }
}

final class ModelCombineLatestSubscription<Value, Failure: Error>: Subscription, ModelParent {
  typealias Input = Value
  var downstream: AnySubscriber<[Value], Failure>?
  var upstreams: [(any Subscription)?]
  var finished: [Bool]
  var latest: [Value?]
  var demand: Subscribers.Demand = .none
  /// An upstream sent since the last tuple went down (and every upstream has a value).
  var pending = false
  var delivering = false

  init(downstream: AnySubscriber<[Value], Failure>, count: Int) {
    self.downstream = downstream
    upstreams = Array(repeating: nil, count: count)
    finished = Array(repeating: false, count: count)
    latest = Array(repeating: nil, count: count)
  }

  func subscribed(_ subscription: any Subscription, index: Int) {
    guard downstream != nil, upstreams[index] == nil, !finished[index] else {
      subscription.cancel()
      return
    }
    upstreams[index] = subscription
    if demand > 0 { subscription.request(demand) }
  }

  func request(_ d: Subscribers.Demand) {
    // Once the demand is unlimited a request changes nothing, and none goes upstream.
    guard downstream != nil, demand != .unlimited else { return }
    demand += d
    if pending, demand > 0 {
      let more = deliver()
      if more > 0, demand != .unlimited { demand += more }
    }
    guard downstream != nil else { return }
    for (i, upstream) in upstreams.enumerated() where !finished[i] { upstream?.request(d) }
  }

  /// Sends the held tuple, taking one of the demand; returns the demand the downstream returned.
  func deliver() -> Subscribers.Demand {
    guard !delivering, let downstream else { return .none }
    let tuple = latest.compactMap { $0 }
    pending = false
    demand -= 1
    delivering = true
    let more = downstream.receive(tuple)
    delivering = false
    return more
  }

  func received(_ input: Value, index: Int) -> Subscribers.Demand {
    guard downstream != nil, !finished[index] else { return .none }
    latest[index] = input
    guard latest.allSatisfy({ $0 != nil }) else { return .none }
    guard demand > 0, !delivering else {
      pending = true
      return .none
    }
    let more = deliver()
    // After a cancel nothing goes upstream; once the demand is unlimited more changes nothing.
    guard downstream != nil, more > 0, demand != .unlimited else { return .none }
    demand += more
    return more
  }

  func completed(_ completion: Subscribers.Completion<Failure>, index: Int) {
    guard let downstream, !finished[index] else { return }
    finished[index] = true
    upstreams[index] = nil
    switch completion {
    case .finished:
      guard finished.allSatisfy({ $0 }) else { return }
      self.downstream = nil
      downstream.receive(completion: .finished)
    case .failure:
      let others = upstreams
      self.downstream = nil
      for upstream in others { upstream?.cancel() }
      downstream.receive(completion: completion)
    }
  }

  func cancel() {
    guard downstream != nil else { return }
    downstream = nil
    let others = upstreams
    upstreams = upstreams.map { _ in nil }
    for upstream in others { upstream?.cancel() }
  }
}

// MARK: - Steps for the publishers that are not scripted upstreams

/// `Future`'s promise as "upstream 0": a value step fulfils it, a failure step rejects it.
final class PromiseLink: LinkProtocol {
  unowned let world: World
  var promise: ((Result<Int, TestError>) -> Void)?
  init(world: World) { self.world = world }
  var index: Int { 0 }
  var aliveField: String { "" }
  func requested(_ d: Subscribers.Demand, number: Int) {}
  func cancelled(number: Int) {}
  func perform(_ step: Step) {
    switch step {
    case .value(_, let x), .forceValue(_, let x):
      world.log(.events, "promise.success \(x)")
      promise?(.success(x))
    case .fail(_, let c), .forceFail(_, let c):
      world.log(.events, "promise.failure E\(c)")
      promise?(.failure(TestError(code: c)))
    default:
      world.log(.events, "promise.step skipped")
    }
  }
}

/// The object whose `@Published` property the `Published` scenario observes.
final class PublishedHolder {
  @Published var value = 0
}

/// A source that a value step sets, as "upstream 0" (a `@Published` property, a notification
/// center): the step is logged as `<name> x`, then `send` sends it; other steps are skipped.
final class SendingLink: LinkProtocol {
  unowned let world: World
  let name: String
  let send: (Int) -> Void
  init(world: World, name: String, send: @escaping (Int) -> Void) {
    self.world = world
    self.name = name
    self.send = send
  }
  var index: Int { 0 }
  var aliveField: String { "" }
  func requested(_ d: Subscribers.Demand, number: Int) {}
  func cancelled(number: Int) {}
  func perform(_ step: Step) {
    switch step {
    case .value(_, let x), .forceValue(_, let x):
      world.log(.events, "\(name) \(x)")
      send(x)
    default:
      world.log(.events, "\(name.prefix { $0 != "." }).step skipped")
    }
  }
}

/// Encodes as its number, except 3, which throws.
struct Encoded: Encodable {
  let x: Int
  func encode(to encoder: any Encoder) throws {
    if x == 3 {
      throw EncodingError.invalidValue(
        x,
        EncodingError.Context(codingPath: [], debugDescription: "three")
      )
    }
    var container = encoder.singleValueContainer()
    try container.encode(x)
  }
}

/// What the key-path scenarios read.
struct Item {
  let a: Int
  var b: Int { a * 10 }
  var c: String { "c\(a)" }
}

/// A publisher that records the `combineIdentifier` of the subscriber it is given, then finishes.
struct IdentifierProbe: Publisher {
  typealias Output = Int
  typealias Failure = Never
  let seen: (CombineIdentifier) -> Void
  func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == Never {
    seen(subscriber.combineIdentifier)
    subscriber.receive(subscription: Subscriptions.empty)
    subscriber.receive(completion: .finished)
  }
}

/// A subscriber that only keeps its identity.
final class PlainSubscriber: Subscriber {
  typealias Input = Int
  typealias Failure = Never
  func receive(subscription: any Subscription) {}
  func receive(_ input: Int) -> Subscribers.Demand { .none }
  func receive(completion: Subscribers.Completion<Never>) {}
}

// MARK: - The scenarios

enum ModelScenarios {
  /// The operators of this file, with their shapes.
  static let operators: [OperatorShape] = [
    .init("merge", upstreams: 2), .init("merge3", upstreams: 3),
    .init("MergeMany", upstreams: 3),
    .init("combineLatest", upstreams: 2), .init("combineLatest3", upstreams: 3),
    .init("merge4", upstreams: 4), .init("merge8", upstreams: 8),
    .init("combineLatest4", upstreams: 4),
    .init("Future", multiDownstream: true, misbehaviour: false),
    .init("Record", upstreams: 0), .init("Record(failure)", upstreams: 0),
    .init("Published", multiDownstream: true, canFail: false, misbehaviour: false),
    .init("NotificationCenter", multiDownstream: true, canFail: false, misbehaviour: false),
    .init("encode"), .init("decode"),
    .init("map(\\.b)"), .init("map(\\.a,\\.b)"), .init("map(\\.a,\\.b,\\.c)"),
    .init("combineIdentifier", upstreams: 0),
  ]

  /// The operators whose OpenCombine side is a reference model: only their events and traps
  /// are compared.
  static let modelled: Set<String> = [
    "merge", "merge3", "merge4", "merge8", "MergeMany", "combineLatest", "combineLatest3",
    "combineLatest4", "collect(.byTime)", "collect(.byTimeOrCount)",
  ]

  /// `emit`, without the description and life-cycle lines for a modelled operator.
  static func channels(_ op: String, _ emit: @escaping (String) -> Void) -> (String) -> Void {
    guard modelled.contains(op) else { return emit }
    return { line in
      if line.hasPrefix("D ") || line.hasPrefix("L ") { return }
      emit(line)
    }
  }

  // swiftlint:disable:next cyclomatic_complexity function_body_length
  static func build(_ op: String, _ w: World) -> Bool {
    switch op {
    case "merge":
      #if OPENCOMBINE
      w.subscribe(ModelMerge([w.ints(), w.ints()]))
      #else
      w.subscribe(w.ints().merge(with: w.ints()))
      #endif
    case "merge3":
      #if OPENCOMBINE
      w.subscribe(ModelMerge([w.ints(), w.ints(), w.ints()]))
      #else
      w.subscribe(w.ints().merge(with: w.ints(), w.ints()))
      #endif
    case "merge4":
      #if OPENCOMBINE
      w.subscribe(ModelMerge((0..<4).map { _ in w.ints() }))
      #else
      w.subscribe(w.ints().merge(with: w.ints(), w.ints(), w.ints()))
      #endif
    case "merge8":
      #if OPENCOMBINE
      w.subscribe(ModelMerge((0..<8).map { _ in w.ints() }))
      #else
      let (a, b, c, d, e, f, g, h) = (
        w.ints(), w.ints(), w.ints(), w.ints(), w.ints(), w.ints(), w.ints(), w.ints()
      )
      w.subscribe(a.merge(with: b, c, d, e, f, g, h))
      #endif
    case "combineLatest4":
      #if OPENCOMBINE
      w.subscribe(ModelCombineLatest((0..<4).map { _ in w.ints() }))
      #else
      w.subscribe(
        w.ints().combineLatest(w.ints(), w.ints(), w.ints()).map { [$0.0, $0.1, $0.2, $0.3] }
      )
      #endif
    case "MergeMany":
      #if OPENCOMBINE
      w.subscribe(ModelMerge([w.ints(), w.ints(), w.ints()]))
      #else
      w.subscribe(Publishers.MergeMany([w.ints(), w.ints(), w.ints()]))
      #endif
    case "combineLatest":
      #if OPENCOMBINE
      w.subscribe(ModelCombineLatest([w.ints(), w.ints()]))
      #else
      w.subscribe(w.ints().combineLatest(w.ints()).map { [$0.0, $0.1] })
      #endif
    case "combineLatest3":
      #if OPENCOMBINE
      w.subscribe(ModelCombineLatest([w.ints(), w.ints(), w.ints()]))
      #else
      w.subscribe(w.ints().combineLatest(w.ints(), w.ints()).map { [$0.0, $0.1, $0.2] })
      #endif
    case "Future":
      let link = PromiseLink(world: w)
      w.subjectLink = link
      let t = w.makeToken()
      w.subscribeMany(
        Future<Int, TestError> { promise in
          t.touch()
          link.promise = promise
        }
      )
    case "Record":
      w.subscribe(Record<Int, TestError>(output: [1, 2, 3], completion: .finished))
    case "Record(failure)":
      w.subscribe(Record<Int, TestError>(output: [1, 2], completion: .failure(TestError(code: 1))))
    case "Published":
      let holder = PublishedHolder()
      w.subjectLink = SendingLink(world: w, name: "property.set") { holder.value = $0 }
      w.subscribeMany(holder.$value)
    case "NotificationCenter":
      let center = NotificationCenter()
      let name = Notification.Name("differential")
      w.subjectLink = SendingLink(world: w, name: "center.post") { x in
        center.post(name: name, object: nil, userInfo: ["x": x])
      }
      w.subscribeMany(center.publisher(for: name))
    case "encode":
      w.subscribe(w.ints().map { Encoded(x: $0) }.encode(encoder: JSONEncoder()))
    case "decode":
      let data = Scripted<Data, TestError>(
        world: w,
        convert: { x in Data((x == 3 ? "x" : "\(x)").utf8) },
        makeError: { TestError(code: $0) }
      )
      w.subscribe(data.decode(type: Int.self, decoder: JSONDecoder()))
    case "map(\\.b)":
      w.subscribe(w.items().map(\.b))
    case "map(\\.a,\\.b)":
      w.subscribe(w.items().map(\.a, \.b))
    case "map(\\.a,\\.b,\\.c)":
      w.subscribe(w.items().map(\.a, \.b, \.c))
    case "combineIdentifier":
      identifiers(w)
    default:
      return false
    }
    return true
  }

  /// Logs, for each case, whether two `combineIdentifier`s are the same (`shared`) or not.
  static func identifiers(_ w: World) {
    func log(_ name: String, _ same: Bool) {
      w.log(.events, "cid.\(name) \(same ? "shared" : "distinct")")
    }
    let plain = PlainSubscriber()
    log("object", plain.combineIdentifier == CombineIdentifier(plain))
    log("AnySubscriber", AnySubscriber(plain).combineIdentifier == plain.combineIdentifier)
    log(
      "AnySubscriber.twice",
      AnySubscriber(AnySubscriber(plain)).combineIdentifier == plain.combineIdentifier
    )
    let closures = AnySubscriber<Int, Never>(receiveValue: { _ in .none })
    log("AnySubscriber.closures", closures.combineIdentifier == CombineIdentifier(plain))
    let other = PlainSubscriber()
    log("two objects", plain.combineIdentifier == other.combineIdentifier)
    let sink = Subscribers.Sink<Int, Never>(receiveCompletion: { _ in }, receiveValue: { _ in })
    log("Sink", sink.combineIdentifier == CombineIdentifier(sink))
    log("AnySubscriber(Sink)", AnySubscriber(sink).combineIdentifier == sink.combineIdentifier)
    // The subscriber an operator gives its upstream: the downstream's own identity, or another.
    func probe<P: Publisher>(_ name: String, _ make: (IdentifierProbe) -> P)
    where P.Output == Int, P.Failure == Never {
      var seen: CombineIdentifier?
      let down = PlainSubscriber()
      make(IdentifierProbe { seen = $0 }).subscribe(down)
      log("upstream sees." + name, seen == down.combineIdentifier)
    }
    probe("direct") { $0 }
    probe("eraseToAnyPublisher") { $0.eraseToAnyPublisher() }
    probe("map") { $0.map { $0 } }
    probe("filter") { $0.filter { _ in true } }
    probe("setFailureType") { $0.setFailureType(to: Never.self) }
    probe("handleEvents") { $0.handleEvents() }
    probe("subscribe(on:)") { $0.subscribe(on: ImmediateScheduler.shared) }
    probe("receive(on:)") { $0.receive(on: ImmediateScheduler.shared) }
    probe("print") { $0.print("p", to: NullStream()) }
    probe("removeDuplicates") { $0.removeDuplicates() }
    probe("share") { $0.share() }
    // Two subscriptions from one Sink: the subscriber each upstream sees is the same one.
    var first: CombineIdentifier?
    var second: CombineIdentifier?
    let twice = Subscribers.Sink<Int, Never>(receiveCompletion: { _ in }, receiveValue: { _ in })
    IdentifierProbe { first = $0 }.subscribe(twice)
    IdentifierProbe { second = $0 }.subscribe(twice)
    log("Sink.resubscribed", first == second)
    w.subscribe(Just(1))
  }
}

/// A `print` target that drops the text.
struct NullStream: TextOutputStream {
  mutating func write(_ string: String) {}
}

extension World {
  func items() -> Scripted<Item, TestError> {
    Scripted(world: self, convert: { Item(a: $0) }, makeError: { TestError(code: $0) })
  }
}
