// The scenario engine, written once and compiled twice:
//   - as module `StreamKitScenarios` against StreamKit's `StreamCore` and `SignalOperators`, and
//   - as module `OpenCombineScenarios` against OpenCombine (with `OPENCOMBINE` defined);
//     Sources/OpenCombineScenarios/Scenarios.swift is a symlink to this file.
// Both implementations use Combine's public names, so the code below is the same for each.
//
// A scenario builds one operator over scripted upstreams (publishers whose subscriptions log every
// `request` and `cancel`), subscribes scripted downstreams (subscribers that log what they receive
// and the subscription's description and mirror, return a scripted demand, and request or cancel
// at scripted points, from inside `receive(_:)` too), runs the script's steps, and after each step
// logs which objects are still alive. The trace is a list of strings; see `DiffModel.Channel`.

import DiffModel

#if OPENCOMBINE
import OpenCombine
#else
import SignalOperators
import StreamCore
#endif

// MARK: - Plain pieces

/// The scripts' error.
struct TestError: Error, Equatable, CustomStringConvertible {
  let code: Int
  var description: String { "E\(code)" }
}

/// Captured by every closure an operator keeps, so a weak reference tells when it is released.
final class Token: @unchecked Sendable {
  func touch() {}
}

final class WeakBox {
  weak var object: AnyObject?
  init(_ object: AnyObject?) { self.object = object }
}

func fmt(_ d: Subscribers.Demand) -> String {
  if d == .unlimited { return "unlimited" }
  return "max(\(d.max ?? -1))"
}

func demand(_ d: ScriptDemand) -> Subscribers.Demand {
  switch d {
  case .max(let n): .max(n)
  case .unlimited: .unlimited
  }
}

/// Drops module names and addresses, so the two libraries' texts compare.
func normalize(_ text: String) -> String {
  var s = text
  // `Publishers` is extended from another module than StreamCore's, so StreamKit's qualified
  // type names of operators read `(extension in SignalOperators):Publishers.Map<…>`.
  for module in [
    "(extension in SignalOperators):",
    "StreamKitScenarios.", "OpenCombineScenarios.", "SignalOperators.", "StreamCore.",
    "FutureKit.", "PropertyWrappers.",
    "OpenCombine.",
    "Swift.",
  ] {
    s = s.replacingAll(module, with: "")
  }
  // Hex addresses: 0x0000600001234567 -> 0x?
  var out = ""
  var i = s.startIndex
  while i < s.endIndex {
    if s[i] == "0", s.index(after: i) < s.endIndex, s[s.index(after: i)] == "x" {
      out += "0x?"
      i = s.index(i, offsetBy: 2)
      while i < s.endIndex, s[i].isHexDigit { i = s.index(after: i) }
    } else {
      out.append(s[i])
      i = s.index(after: i)
    }
  }
  return out
}

extension String {
  func replacingAll(_ target: String, with replacement: String) -> String {
    guard !target.isEmpty else { return self }
    var result = ""
    var rest = Substring(self)
    while let range = rest.firstRange(of: target) {
      result += rest[..<range.lowerBound]
      result += replacement
      rest = rest[range.upperBound...]
    }
    result += rest
    return result
  }
}

/// Description, mirror children and playground description of a subscription (or any object).
func describe(_ object: Any) -> (description: String, mirror: String, playground: String) {
  let description = normalize(String(describing: object))
  let mirror = Mirror(reflecting: object)
  let children = mirror.children.map { child in
    "\(child.label ?? "_"): \(normalize(String(describing: child.value)))"
  }
  let playground: String
  if let p = object as? any CustomPlaygroundDisplayConvertible {
    playground = normalize(String(describing: p.playgroundDescription))
  } else {
    playground = "(none)"
  }
  return (description, "[" + children.joined(separator: ", ") + "]", playground)
}

// MARK: - The world: trace, upstreams, downstreams

final class World: @unchecked Sendable {
  let script: Script
  let emit: (String) -> Void
  var links: [any LinkProtocol] = []
  var downs: [WeakBox] = []
  var downSubscriptions: [(any Subscription)?] = []
  var downState: [String] = []
  var token: WeakBox?
  var attach: (() -> Void)?
  var connect: (() -> any Cancellable)?
  var connections: [any Cancellable] = []
  /// For the time operators: advances the virtual-time scheduler (TimeScenarios.swift).
  var advance: ((Int) -> Void)?
  /// For the subjects: the step target for upstream 0.
  var subjectLink: (any LinkProtocol)?
  var printed = ""
  /// For the terminal subscribers (TerminalScenarios.swift): what holds them, as an owner would.
  var terminalCancellables: [AnyCancellable] = []
  var stored = Set<AnyCancellable>()
  var keptHolder: AnyObject?

  init(script: Script, emit: @escaping (String) -> Void) {
    self.script = script
    self.emit = emit
  }

  /// Set when the scenario is over: objects released later (a leaked cycle's deinit, say) log nothing.
  var done = false

  func log(_ channel: Channel, _ line: String) {
    guard !done else { return }
    emit(channel.rawValue + " " + line)
  }

  /// A token for the operator's closures; the world keeps only a weak reference.
  func makeToken() -> Token {
    let t = Token()
    token = WeakBox(t)
    return t
  }

  func link(_ u: Int) -> (any LinkProtocol)? {
    if let subjectLink { return u == 0 ? subjectLink : nil }
    return u < links.count ? links[u] : nil
  }

  func aliveLine() -> String {
    var parts: [String] = []
    for link in links {
      parts.append(link.aliveField)
    }
    for (k, box) in downs.enumerated() {
      parts.append("down\(k)=\(box.object == nil ? 0 : 1)")
    }
    if let token {
      parts.append("closure=\(token.object == nil ? 0 : 1)")
    }
    parts.append("state=\(downState.first ?? "none")")
    return "alive " + parts.joined(separator: " ")
  }
}

protocol LinkProtocol: AnyObject {
  var index: Int { get }
  var aliveField: String { get }
  func perform(_ step: Step)
  func requested(_ d: Subscribers.Demand, number: Int)
  func cancelled(number: Int)
}

/// The subscription a scripted upstream gives: logs every `request` and `cancel`.
final class ScriptedSubscription: Subscription, CustomStringConvertible, @unchecked Sendable {
  let link: any LinkProtocol
  let number: Int
  init(link: any LinkProtocol, number: Int) {
    self.link = link
    self.number = number
  }
  var description: String { "Scripted\(link.index)" + (number > 1 ? "#\(number)" : "") }
  func request(_ demand: Subscribers.Demand) { link.requested(demand, number: number) }
  func cancel() { link.cancelled(number: number) }
}

/// One subscription to a scripted publisher: holds the subscriber (until the end, as a
/// well-behaved publisher would; for ever in a misbehaving script) and sends what the steps say.
final class Link<Output, Failure: Error>: LinkProtocol {
  let index: Int
  unowned let world: World
  let convert: (Int) -> Output
  let makeError: (Int) -> Failure?
  var subscriber: AnySubscriber<Output, Failure>?
  var pinned: AnySubscriber<Output, Failure>?
  var demand: Subscribers.Demand = .none
  var ended = false
  var subscriptionsSent = 0
  /// The `request(_:)` calls so far, for the planted bugs of Mutants.swift.
  var requestCalls = 0
  weak var firstSubscription: ScriptedSubscription?
  var name: String { "up\(index)" }

  init(
    index: Int,
    world: World,
    subscriber: AnySubscriber<Output, Failure>,
    convert: @escaping (Int) -> Output,
    makeError: @escaping (Int) -> Failure?
  ) {
    self.index = index
    self.world = world
    self.convert = convert
    self.makeError = makeError
    self.subscriber = subscriber
    if world.script.isMisbehaving { pinned = subscriber }
  }

  var aliveField: String { "\(name).sub=\(firstSubscription == nil ? 0 : 1)" }

  func sendSubscription() {
    guard let target = subscriber ?? pinned else {
      world.log(.events, "\(name).subscription skipped")
      return
    }
    subscriptionsSent += 1
    let subscription = ScriptedSubscription(link: self, number: subscriptionsSent)
    if subscriptionsSent == 1 { firstSubscription = subscription }
    world.log(.events, "\(name).subscription #\(subscriptionsSent)")
    target.receive(subscription: subscription)
  }

  func requested(_ d: Subscribers.Demand, number: Int) {
    #if !OPENCOMBINE
    requestCalls += 1
    guard let d = Mutants.request(d, upstream: index, count: requestCalls, world: world) else {
      return
    }
    #endif
    world.log(.events, "\(name).request \(fmt(d))" + (number > 1 ? " on #\(number)" : ""))
    if number == 1 { demand += d }
  }

  func cancelled(number: Int) {
    #if !OPENCOMBINE
    guard Mutants.forwardsCancel(world: world) else { return }
    #endif
    world.log(.events, "\(name).cancel" + (number > 1 ? " on #\(number)" : ""))
    if number == 1 {
      ended = true
      subscriber = nil
    }
  }

  func send(_ x: Int, force: Bool) {
    guard let target = force ? (subscriber ?? pinned) : subscriber, force || (!ended && demand > 0)
    else {
      world.log(.events, "\(name).value \(x) skipped")
      return
    }
    if demand > 0 { demand -= 1 }
    // A forced step is marked, so an expected difference can tell that the upstream broke the
    // contract before it.
    world.log(.events, "\(name).value \(x)" + (force ? " (forced)" : ""))
    let more = target.receive(convert(x))
    world.log(.events, "\(name).returned \(fmt(more))")
    demand += more
  }

  func complete(_ code: Int?, force: Bool) {
    let what = code.map { "failure E\($0)" } ?? "finished"
    guard let target = force ? (subscriber ?? pinned) : subscriber, force || !ended else {
      world.log(.events, "\(name).\(what) skipped")
      return
    }
    let completion: Subscribers.Completion<Failure>
    if let code {
      guard let error = makeError(code) else {
        world.log(.events, "\(name).\(what) skipped (Never)")
        return
      }
      completion = .failure(error)
    } else {
      completion = .finished
    }
    ended = true
    subscriber = nil
    world.log(.events, "\(name).\(what)" + (force ? " (forced)" : ""))
    target.receive(completion: completion)
  }

  func perform(_ step: Step) {
    switch step {
    case .value(_, let x): send(x, force: false)
    case .forceValue(_, let x): send(x, force: true)
    case .finish: complete(nil, force: false)
    case .forceFinish: complete(nil, force: true)
    case .fail(_, let c): complete(c, force: false)
    case .forceFail(_, let c): complete(c, force: true)
    case .sendSubscription: sendSubscription()
    default: break
    }
  }
}

/// A publisher whose every subscription is a scripted upstream (numbered in subscription order).
struct Scripted<Output, Failure: Error>: Publisher {
  let world: World
  let convert: (Int) -> Output
  let makeError: (Int) -> Failure?

  func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
    let index = world.links.count
    let link = Link(
      index: index,
      world: world,
      subscriber: AnySubscriber(subscriber),
      convert: convert,
      makeError: makeError
    )
    world.links.append(link)
    world.log(.events, "up\(index).subscribed")
    let d = describe(subscriber)
    world.log(.descriptions, "up\(index).subscriber \(d.description)")
    if index == world.script.lateUpstream && world.script.lateSubscription {
      world.log(.events, "up\(index).subscription withheld")
      return
    }
    link.sendSubscription()
  }
}

extension World {
  func ints() -> Scripted<Int, TestError> {
    Scripted(world: self, convert: { $0 }, makeError: { TestError(code: $0) })
  }
  func neverFailing() -> Scripted<Int, Never> {
    Scripted(world: self, convert: { $0 }, makeError: { _ in nil })
  }
  func optionals() -> Scripted<Int?, TestError> {
    Scripted(world: self, convert: { $0 == 0 ? nil : $0 }, makeError: { TestError(code: $0) })
  }
}

/// The subjects as "upstream 0": a value step sends into the subject.
final class SubjectLink<S: Subject>: LinkProtocol where S.Output == Int, S.Failure == TestError {
  let subject: S
  unowned let world: World
  init(subject: S, world: World) {
    self.subject = subject
    self.world = world
  }
  var index: Int { 0 }
  var aliveField: String { "" }
  func requested(_ d: Subscribers.Demand, number: Int) {}
  func cancelled(number: Int) {}
  func perform(_ step: Step) {
    switch step {
    case .value(_, let x), .forceValue(_, let x):
      world.log(.events, "subject.send \(x)")
      subject.send(x)
    case .finish, .forceFinish:
      world.log(.events, "subject.finished")
      subject.send(completion: .finished)
    case .fail(_, let c), .forceFail(_, let c):
      world.log(.events, "subject.failure E\(c)")
      subject.send(completion: .failure(TestError(code: c)))
    default:
      world.log(.events, "subject.step skipped")
    }
  }
}

/// A scripted downstream.
final class Downstream<Input, Failure: Error>: Subscriber, CustomStringConvertible {
  let index: Int
  unowned let world: World
  var subscription: (any Subscription)?
  var returns: Subscribers.Demand = .none
  var requestInReceive: Subscribers.Demand?
  var cancelInReceive = false
  var name: String { "down\(index)" }
  var description: String { "Downstream\(index)" }

  init(index: Int, world: World) {
    self.index = index
    self.world = world
  }

  func receive(subscription: any Subscription) {
    world.log(.events, "\(name).subscription")
    let d = describe(subscription)
    world.log(.descriptions, "\(name).description \(d.description)")
    world.log(.descriptions, "\(name).mirror \(d.mirror)")
    world.log(.descriptions, "\(name).playground \(d.playground)")
    if self.subscription != nil {
      world.log(.events, "\(name).second subscription (ignored)")
      return
    }
    self.subscription = subscription
    world.downSubscriptions[index] = subscription
    if let initial = world.script.initial {
      world.log(.events, "\(name).request \(fmt(demand(initial))) (in receive(subscription:))")
      subscription.request(demand(initial))
    }
  }

  func receive(_ input: Input) -> Subscribers.Demand {
    world.log(.events, "\(name).value \(normalize(String(describing: input)))")
    if let d = requestInReceive {
      requestInReceive = nil
      world.log(.events, "\(name).request \(fmt(d)) (in receive)")
      subscription?.request(d)
    }
    if cancelInReceive {
      cancelInReceive = false
      world.log(.events, "\(name).cancel (in receive)")
      world.downState[index] = "cancelled"
      subscription?.cancel()
    }
    world.log(.events, "\(name).return \(fmt(returns))")
    return returns
  }

  func receive(completion: Subscribers.Completion<Failure>) {
    switch completion {
    case .finished: world.log(.events, "\(name).finished")
    case .failure(let e): world.log(.events, "\(name).failure \(normalize(String(describing: e)))")
    }
    if world.downState[index] == "active" { world.downState[index] = "completed" }
    subscription = nil
  }
}

extension World {
  /// Subscribes downstream number `downs.count` to `publisher`; the world keeps only a weak
  /// reference to the downstream (and, like an `AnyCancellable`, the subscription it receives).
  func subscribe<P: Publisher>(_ publisher: P) {
    let k = downs.count
    let down = Downstream<P.Output, P.Failure>(index: k, world: self)
    downs.append(WeakBox(down))
    downSubscriptions.append(nil)
    downState.append("active")
    log(.events, "down\(k).subscribe")
    #if OPENCOMBINE
    publisher.subscribe(down)
    #else
    Mutants.subscribe(publisher, down, world: self)
    #endif
  }

  func subscribeMany<P: Publisher>(_ publisher: P) {
    subscribe(publisher)
    attach = { [unowned self] in self.subscribe(publisher) }
  }

  func downstreamStep(_ step: Step) {
    switch step {
    case .request(let d, let n):
      guard d < downs.count, let s = downSubscriptions[d] else {
        log(.events, "down\(d).request skipped")
        return
      }
      log(.events, "down\(d).request \(fmt(demand(n)))")
      s.request(demand(n))
    case .cancel(let d):
      guard d < downs.count, let s = downSubscriptions[d] else {
        log(.events, "down\(d).cancel skipped")
        return
      }
      log(.events, "down\(d).cancel")
      if downState[d] == "active" { downState[d] = "cancelled" }
      s.cancel()
    case .returns(let d, let n):
      (downs[safe: d]?.object as? any ScriptedDownstream)?.setReturns(demand(n))
    case .requestInReceive(let d, let n):
      (downs[safe: d]?.object as? any ScriptedDownstream)?.setRequestInReceive(demand(n))
    case .cancelInReceive(let d):
      (downs[safe: d]?.object as? any ScriptedDownstream)?.setCancelInReceive()
    case .advance(let n):
      if let advance { advance(n) } else { log(.events, "t\(n) skipped") }
    case .attach:
      if let attach { attach() } else { log(.events, "attach skipped") }
    case .connect:
      if let connect {
        log(.events, "connect")
        connections.append(connect())
      } else {
        log(.events, "connect skipped")
      }
    default: break
    }
  }
}

protocol ScriptedDownstream: AnyObject {
  func setReturns(_ d: Subscribers.Demand)
  func setRequestInReceive(_ d: Subscribers.Demand)
  func setCancelInReceive()
}

extension Downstream: ScriptedDownstream {
  func setReturns(_ d: Subscribers.Demand) { returns = d }
  func setRequestInReceive(_ d: Subscribers.Demand) { requestInReceive = d }
  func setCancelInReceive() { cancelInReceive = true }
}

extension Array {
  subscript(safe i: Int) -> Element? { i >= 0 && i < count ? self[i] : nil }
}

/// `print`'s output, one trace line per printed line.
struct PrintStream: TextOutputStream {
  let world: World
  mutating func write(_ string: String) {
    world.printed += string
    while let newline = world.printed.firstIndex(of: "\n") {
      let line = normalize(String(world.printed[..<newline]))
      #if OPENCOMBINE
      world.log(.events, "print " + line)
      #else
      if Mutants.keepsPrinted(line, world: world) { world.log(.events, "print " + line) }
      #endif
      world.printed = String(world.printed[world.printed.index(after: newline)...])
    }
  }
}

// MARK: - The operators

nonisolated(unsafe) var keptWorlds: [World] = []

public enum Scenarios {
  /// The operators over scripted upstreams (the time operators are in TimeScenarios.swift).
  static let untimedOperators: [OperatorShape] = [
    .init("map"), .init("tryMap"), .init("filter"), .init("tryFilter"), .init("compactMap"),
    .init("tryCompactMap"), .init("scan"), .init("tryScan"), .init("reduce"), .init("tryReduce"),
    .init("collect"), .init("collect(2)"), .init("prefix(2)"), .init("prefix(while:)"),
    .init("tryPrefix(while:)"), .init("dropFirst(2)"), .init("drop(while:)"),
    .init("tryDrop(while:)"),
    .init("first"), .init("first(where:)"), .init("tryFirst(where:)"), .init("last"),
    .init("last(where:)"),
    .init("tryLast(where:)"), .init("output(at:1)"), .init("output(in:1...2)"),
    .init("removeDuplicates"),
    .init("tryRemoveDuplicates"), .init("replaceNil"), .init("replaceEmpty"), .init("replaceError"),
    .init("mapError"), .init("setFailureType", canFail: false), .init("ignoreOutput"),
    .init("contains"),
    .init("contains(where:)"), .init("tryContains(where:)"), .init("allSatisfy"),
    .init("tryAllSatisfy"),
    .init("count"), .init("min"), .init("max"), .init("min(by:)"), .init("tryMax(by:)"),
    .init("handleEvents"), .init("print"), .init("breakpoint"), .init("assertNoFailure"),
    .init("eraseToAnyPublisher"), .init("receive(on:immediate)"), .init("subscribe(on:immediate)"),
    .init("buffer.byRequest.dropOldest"), .init("buffer.byRequest.dropNewest"),
    .init("buffer.keepFull.dropNewest"), .init("buffer.keepFull.customError"),
    .init("catch", extraUpstreams: 1), .init("tryCatch", extraUpstreams: 1),
    .init("retry(1)", extraUpstreams: 1),
    .init("flatMap(max:1)", extraUpstreams: 3, misbehavingSetup: [[], [.value(u: 0, x: 0)]]),
    .init("flatMap(max:2)", extraUpstreams: 3, misbehavingSetup: [[], [.value(u: 0, x: 0)]]),
    .init("flatMap(unlimited)", extraUpstreams: 3, misbehavingSetup: [[], [.value(u: 0, x: 0)]]),
    .init("switchToLatest", extraUpstreams: 3, misbehavingSetup: [[], [.value(u: 0, x: 0)]]),
    .init("zip", upstreams: 2, misbehavingSetup: [[], []]),
    .init("zip3", upstreams: 3, misbehavingSetup: [[], [], []]),
    .init("append", upstreams: 2, misbehavingSetup: [[], [.finish(u: 0)]]),
    .init("prepend", upstreams: 2, misbehavingSetup: [[], [.finish(u: 0)]]),
    .init("append(values)"), .init("prepend(values)"),
    .init("drop(untilOutputFrom:)", upstreams: 2, misbehavingSetup: [[], []]),
    .init("prefix(untilOutputFrom:)", upstreams: 2, misbehavingSetup: [[], []]),
    .init("Deferred", misbehaviour: false),
    .init("Just", upstreams: 0), .init("Empty", upstreams: 0), .init("Fail", upstreams: 0),
    .init("Sequence", upstreams: 0), .init("Optional.Publisher", upstreams: 0),
    .init("Result.Publisher", upstreams: 0),
    .init("multicast", multiDownstream: true, connectable: true),
    .init("makeConnectable", multiDownstream: true, connectable: true, canFail: false),
    .init("autoconnect", multiDownstream: true, canFail: false),
    .init("share", multiDownstream: true),
    .init("PassthroughSubject", upstreams: 1, multiDownstream: true, misbehaviour: false),
    .init("CurrentValueSubject", upstreams: 1, multiDownstream: true, misbehaviour: false),
  ] + ModelScenarios.operators + FormScenarios.operators + TerminalScenarios.operators

  /// Runs `script` and calls `emit` with each trace line as it happens (so a trap keeps the lines
  /// before it). Returns false for an unknown operator.
  @discardableResult
  public static func run(_ script: Script, emit: @escaping (String) -> Void) -> Bool {
    let world = World(script: script, emit: ModelScenarios.channels(script.op, emit))
    // Kept for the life of the process: objects of the scenario may outlive it (they refer to the
    // world `unowned`), and a child process runs a bounded batch of scripts.
    keptWorlds.append(world)
    defer { world.done = true }
    guard build(script.op, world) else { return false }
    world.log(.lifecycle, world.aliveLine())
    for step in script.steps {
      switch step {
      case .value(let u, _), .finish(let u), .fail(let u, _), .forceValue(let u, _),
        .forceFinish(let u),
        .forceFail(let u, _), .sendSubscription(let u):
        if let link = world.link(u) {
          link.perform(step)
        } else {
          world.log(.events, "up\(u) skipped")
        }
      default:
        world.downstreamStep(step)
      }
      world.log(.lifecycle, world.aliveLine())
    }
    // The final descriptions, after everything happened.
    for (k, subscription) in world.downSubscriptions.enumerated() {
      guard let subscription else { continue }
      let d = describe(subscription)
      world.log(.descriptions, "down\(k).final.description \(d.description)")
      world.log(.descriptions, "down\(k).final.mirror \(d.mirror)")
    }
    return true
  }

  // swiftlint:disable:next cyclomatic_complexity function_body_length
  static func build(_ op: String, _ w: World) -> Bool {
    let up = w.ints()
    switch op {
    case "map":
      let t = w.makeToken()
      w.subscribe(
        up.map {
          t.touch()
          return $0 * 10
        }
      )
    case "tryMap":
      let t = w.makeToken()
      w.subscribe(
        up.tryMap { x -> Int in
          t.touch()
          if x == 3 { throw TestError(code: 9) }
          return x * 10
        }
      )
    case "filter":
      let t = w.makeToken()
      w.subscribe(
        up.filter {
          t.touch()
          return $0 % 2 == 0
        }
      )
    case "tryFilter":
      let t = w.makeToken()
      w.subscribe(
        up.tryFilter { x in
          t.touch()
          if x == 3 { throw TestError(code: 9) }
          return x % 2 == 0
        }
      )
    case "compactMap":
      let t = w.makeToken()
      w.subscribe(
        up.compactMap { x -> Int? in
          t.touch()
          return x % 2 == 0 ? x : nil
        }
      )
    case "tryCompactMap":
      let t = w.makeToken()
      w.subscribe(
        up.tryCompactMap { x -> Int? in
          t.touch()
          if x == 3 { throw TestError(code: 9) }
          return x % 2 == 0 ? x : nil
        }
      )
    case "scan":
      let t = w.makeToken()
      w.subscribe(
        up.scan(0) {
          t.touch()
          return $0 + $1
        }
      )
    case "tryScan":
      let t = w.makeToken()
      w.subscribe(
        up.tryScan(0) { a, x in
          t.touch()
          if x == 3 { throw TestError(code: 9) }
          return a + x
        }
      )
    case "reduce":
      let t = w.makeToken()
      w.subscribe(
        up.reduce(0) {
          t.touch()
          return $0 + $1
        }
      )
    case "tryReduce":
      let t = w.makeToken()
      w.subscribe(
        up.tryReduce(0) { a, x in
          t.touch()
          if x == 3 { throw TestError(code: 9) }
          return a + x
        }
      )
    case "collect": w.subscribe(up.collect())
    case "collect(2)": w.subscribe(up.collect(2))
    case "prefix(2)": w.subscribe(up.prefix(2))
    case "prefix(while:)":
      let t = w.makeToken()
      w.subscribe(
        up.prefix {
          t.touch()
          return $0 < 3
        }
      )
    case "tryPrefix(while:)":
      let t = w.makeToken()
      w.subscribe(
        up.tryPrefix { x in
          t.touch()
          if x == 4 { throw TestError(code: 9) }
          return x < 3
        }
      )
    case "dropFirst(2)": w.subscribe(up.dropFirst(2))
    case "drop(while:)":
      let t = w.makeToken()
      w.subscribe(
        up.drop {
          t.touch()
          return $0 < 2
        }
      )
    case "tryDrop(while:)":
      let t = w.makeToken()
      w.subscribe(
        up.tryDrop { x in
          t.touch()
          if x == 4 { throw TestError(code: 9) }
          return x < 2
        }
      )
    case "first": w.subscribe(up.first())
    case "first(where:)":
      let t = w.makeToken()
      w.subscribe(
        up.first {
          t.touch()
          return $0 > 2
        }
      )
    case "tryFirst(where:)":
      let t = w.makeToken()
      w.subscribe(
        up.tryFirst { x in
          t.touch()
          if x == 1 { throw TestError(code: 9) }
          return x > 2
        }
      )
    case "last": w.subscribe(up.last())
    case "last(where:)":
      let t = w.makeToken()
      w.subscribe(
        up.last {
          t.touch()
          return $0 > 2
        }
      )
    case "tryLast(where:)":
      let t = w.makeToken()
      w.subscribe(
        up.tryLast { x in
          t.touch()
          if x == 1 { throw TestError(code: 9) }
          return x > 2
        }
      )
    case "output(at:1)": w.subscribe(up.output(at: 1))
    case "output(in:1...2)": w.subscribe(up.output(in: 1...2))
    case "removeDuplicates": w.subscribe(up.removeDuplicates())
    case "tryRemoveDuplicates":
      let t = w.makeToken()
      w.subscribe(
        up.tryRemoveDuplicates { a, b in
          t.touch()
          if b == 4 { throw TestError(code: 9) }
          return a == b
        }
      )
    case "replaceNil": w.subscribe(w.optionals().replaceNil(with: 42))
    case "replaceEmpty": w.subscribe(up.replaceEmpty(with: 42))
    case "replaceError": w.subscribe(up.replaceError(with: 42))
    case "mapError":
      let t = w.makeToken()
      w.subscribe(
        up.mapError {
          t.touch()
          return TestError(code: $0.code + 100)
        }
      )
    case "setFailureType": w.subscribe(w.neverFailing().setFailureType(to: TestError.self))
    case "ignoreOutput": w.subscribe(up.ignoreOutput())
    case "contains": w.subscribe(up.contains(2))
    case "contains(where:)":
      let t = w.makeToken()
      w.subscribe(
        up.contains {
          t.touch()
          return $0 > 2
        }
      )
    case "tryContains(where:)":
      let t = w.makeToken()
      w.subscribe(
        up.tryContains { x in
          t.touch()
          if x == 1 { throw TestError(code: 9) }
          return x > 2
        }
      )
    case "allSatisfy":
      let t = w.makeToken()
      w.subscribe(
        up.allSatisfy {
          t.touch()
          return $0 < 3
        }
      )
    case "tryAllSatisfy":
      let t = w.makeToken()
      w.subscribe(
        up.tryAllSatisfy { x in
          t.touch()
          if x == 4 { throw TestError(code: 9) }
          return x < 3
        }
      )
    case "count": w.subscribe(up.count())
    case "min": w.subscribe(up.min())
    case "max": w.subscribe(up.max())
    case "min(by:)":
      let t = w.makeToken()
      w.subscribe(
        up.min {
          t.touch()
          return $0 > $1
        }
      )
    case "tryMax(by:)":
      let t = w.makeToken()
      w.subscribe(
        up.tryMax { a, b in
          t.touch()
          if b == 4 { throw TestError(code: 9) }
          return a < b
        }
      )
    case "handleEvents":
      let t = w.makeToken()
      w.subscribe(
        up.handleEvents(
          receiveSubscription: { s in
            t.touch()
            w.log(.events, "hook.subscription \(normalize(String(describing: s)))")
          },
          receiveOutput: { x in
            t.touch()
            w.log(.events, "hook.output \(x)")
          },
          receiveCompletion: { c in
            t.touch()
            w.log(.events, "hook.completion \(normalize(String(describing: c)))")
          },
          receiveCancel: {
            t.touch()
            w.log(.events, "hook.cancel")
          },
          receiveRequest: { d in
            t.touch()
            w.log(.events, "hook.request \(fmt(d))")
          }
        )
      )
    case "print": w.subscribe(up.print("p", to: PrintStream(world: w)))
    case "breakpoint":
      let t = w.makeToken()
      w.subscribe(
        up.breakpoint(
          receiveSubscription: { _ in
            t.touch()
            return false
          },
          receiveOutput: { _ in
            t.touch()
            return false
          },
          receiveCompletion: { _ in
            t.touch()
            return false
          }
        )
      )
    case "assertNoFailure": w.subscribe(up.assertNoFailure("oracle"))
    case "eraseToAnyPublisher": w.subscribe(up.eraseToAnyPublisher())
    case "receive(on:immediate)": w.subscribe(up.receive(on: ImmediateScheduler.shared))
    case "subscribe(on:immediate)": w.subscribe(up.subscribe(on: ImmediateScheduler.shared))
    case "buffer.byRequest.dropOldest":
      w.subscribe(up.buffer(size: 2, prefetch: .byRequest, whenFull: .dropOldest))
    case "buffer.byRequest.dropNewest":
      w.subscribe(up.buffer(size: 2, prefetch: .byRequest, whenFull: .dropNewest))
    case "buffer.keepFull.dropNewest":
      w.subscribe(up.buffer(size: 2, prefetch: .keepFull, whenFull: .dropNewest))
    case "buffer.keepFull.customError":
      w.subscribe(
        up.buffer(size: 2, prefetch: .keepFull, whenFull: .customError { TestError(code: 7) })
      )
    case "catch":
      let t = w.makeToken()
      w.subscribe(
        up.catch { _ in
          t.touch()
          return w.ints()
        }
      )
    case "tryCatch":
      let t = w.makeToken()
      w.subscribe(
        up.tryCatch { e -> Scripted<Int, TestError> in
          t.touch()
          if e.code == 2 { throw TestError(code: 9) }
          return w.ints()
        }
      )
    case "retry(1)": w.subscribe(up.retry(1))
    case "flatMap(max:1)", "flatMap(max:2)", "flatMap(unlimited)":
      let t = w.makeToken()
      let max: Subscribers.Demand =
        op == "flatMap(max:1)" ? .max(1) : op == "flatMap(max:2)" ? .max(2) : .unlimited
      w.subscribe(
        up.flatMap(maxPublishers: max) { _ in
          t.touch()
          return w.ints()
        }
      )
    case "switchToLatest":
      let outer = Scripted<Scripted<Int, TestError>, TestError>(
        world: w,
        convert: { _ in w.ints() },
        makeError: { TestError(code: $0) }
      )
      w.subscribe(outer.switchToLatest())
    case "zip": w.subscribe(up.zip(w.ints()))
    case "zip3": w.subscribe(up.zip(w.ints(), w.ints()))
    case "append": w.subscribe(up.append(w.ints()))
    case "prepend": w.subscribe(up.prepend(w.ints()))
    case "append(values)": w.subscribe(up.append(7, 8))
    case "prepend(values)": w.subscribe(up.prepend(7, 8))
    case "drop(untilOutputFrom:)": w.subscribe(up.drop(untilOutputFrom: w.ints()))
    case "prefix(untilOutputFrom:)": w.subscribe(up.prefix(untilOutputFrom: w.ints()))
    case "Deferred":
      let t = w.makeToken()
      w.subscribe(
        Deferred {
          t.touch()
          return w.ints()
        }
      )
    case "Just": w.subscribe(Just(1))
    case "Empty": w.subscribe(Empty<Int, TestError>())
    case "Fail": w.subscribe(Fail<Int, TestError>(error: TestError(code: 1)))
    case "Sequence": w.subscribe([1, 2, 3].publisher)
    case "Optional.Publisher": w.subscribe(Optional<Int>.Publisher(1))
    case "Result.Publisher": w.subscribe(Result<Int, TestError>.Publisher(.success(1)))
    case "multicast":
      let p = up.multicast(subject: PassthroughSubject<Int, TestError>())
      w.subscribeMany(p)
      w.connect = { p.connect() }
    case "makeConnectable":
      let p = w.neverFailing().makeConnectable()
      w.subscribeMany(p)
      w.connect = { p.connect() }
    case "autoconnect": w.subscribeMany(w.neverFailing().makeConnectable().autoconnect())
    case "share": w.subscribeMany(up.share())
    case "PassthroughSubject":
      let subject = PassthroughSubject<Int, TestError>()
      w.subjectLink = SubjectLink(subject: subject, world: w)
      w.subscribeMany(subject)
    case "CurrentValueSubject":
      let subject = CurrentValueSubject<Int, TestError>(0)
      w.subjectLink = SubjectLink(subject: subject, world: w)
      w.subscribeMany(subject)
    default:
      return ModelScenarios.build(op, w) || FormScenarios.build(op, w)
        || TerminalScenarios.build(op, w) || buildTime(op, w)
    }
    return true
  }
}
