// The terminal subscribers, written once and compiled twice like Scenarios.swift
// (Sources/OpenCombineScenarios/TerminalScenarios.swift is a symlink to this file): `sink`,
// `assign(to:on:)`, `assign(to: &$x)` and `store(in:)` over a scripted upstream.
//
// What the subscriber does is logged as downstream 0's events (`down0.value 3`, `down0.finished`),
// so the expected differences read the same as for the scripted downstream. The script's cancel
// step cancels the `AnyCancellable` (for `store(in:)`, empties the set that holds it); its other
// downstream steps do nothing, since these subscribers make their own requests. The life cycle's
// `down0` is the subscriber (the `Sink`), or the object `assign` writes to, which only the
// subscription holds; `closure` is what the closures capture.

import DiffModel

#if OPENCOMBINE
import OpenCombine
#else
import PropertyWrappers
import SignalOperators
import StreamCore
#endif

enum TerminalScenarios {
  static let operators: [OperatorShape] = [
    .init("sink"), .init("sink(receiveValue:)", canFail: false),
    .init("assign(to:on:)", canFail: false), .init("assign(to:&$x)", canFail: false),
    .init("store(in:)"),
  ]

  static func build(_ op: String, _ w: World) -> Bool {
    switch op {
    case "sink":
      let (completed, received) = w.terminalClosures()
      let sink = Subscribers.Sink<Int, TestError>(
        receiveCompletion: completed,
        receiveValue: received
      )
      w.attachTerminal(sink, cancel: AnyCancellable(sink))
      w.ints().subscribe(sink)
    case "sink(receiveValue:)":
      let t = w.makeToken()
      let cancellable = w.neverFailing().sink { [unowned w] value in
        t.touch()
        w.log(.events, "down0.value \(value)")
      }
      w.attachTerminal(nil, cancel: cancellable)
    case "assign(to:on:)":
      let target = AssignTarget(world: w)
      let cancellable = w.neverFailing().assign(to: \.value, on: target)
      w.attachTerminal(target, cancel: cancellable)
    case "assign(to:&$x)":
      let holder = LoggingHolder(world: w)
      w.neverFailing().assign(to: &holder.$value)
      w.keptHolder = holder
      w.attachTerminal(holder, cancel: nil)
    case "store(in:)":
      let (completed, received) = w.terminalClosures()
      w.ints().sink(receiveCompletion: completed, receiveValue: received).store(in: &w.stored)
      w.attachTerminal(nil, cancel: nil, cancelStep: { [unowned w] in w.stored.removeAll() })
    default:
      return false
    }
    return true
  }
}

/// The object `assign(to:on:)` writes to; each write is downstream 0's value.
final class AssignTarget {
  unowned let world: World
  init(world: World) { self.world = world }
  var value = 0 {
    didSet { world.log(.events, "down0.value \(value)") }
  }
}

/// The object whose `@Published` property `assign(to: &$x)` writes to; each value its publisher
/// sends (the initial one too) is downstream 0's value. (`assign(to: &$x)` writes through the
/// publisher, so a `didSet` would see nothing.)
final class LoggingHolder {
  @Published var value = 0
  private var watch: AnyCancellable?
  init(world: World) {
    watch = $value.sink { [unowned world] in world.log(.events, "down0.value \($0)") }
  }
}

/// Downstream 0's place in the world for a terminal subscriber: the cancel step reaches it
/// through this subscription; a request goes nowhere.
final class TerminalHandle: Subscription {
  let cancelStep: () -> Void
  init(_ cancelStep: @escaping () -> Void) { self.cancelStep = cancelStep }
  func request(_ demand: Subscribers.Demand) {}
  func cancel() { cancelStep() }
  var description: String { "TerminalHandle" }
}

extension World {
  /// Makes a terminal subscriber downstream 0: `object` is what its life-cycle field follows,
  /// `cancel` what the script's cancel step cancels (or `cancelStep` what it does).
  func attachTerminal(
    _ object: AnyObject?,
    cancel: AnyCancellable?,
    cancelStep: (() -> Void)? = nil
  ) {
    downs.append(WeakBox(object))
    downState.append("active")
    log(.events, "down0.subscribe")
    let step = cancelStep ?? { cancel?.cancel() }
    downSubscriptions.append(TerminalHandle(step))
    if let cancel { terminalCancellables.append(cancel) }
  }

  /// A sink's closures: each logs as downstream 0 and captures the scenario's token.
  func terminalClosures() -> (
    completed: (Subscribers.Completion<TestError>) -> Void, received: (Int) -> Void
  ) {
    let t = makeToken()
    return (
      { [unowned self] completion in
        t.touch()
        terminalCompleted(completion)
      },
      { [unowned self] value in
        t.touch()
        log(.events, "down0.value \(value)")
      }
    )
  }

  /// A terminal subscriber's completion, as downstream 0's.
  func terminalCompleted(_ completion: Subscribers.Completion<TestError>) {
    switch completion {
    case .finished: log(.events, "down0.finished")
    case .failure(let e): log(.events, "down0.failure \(e)")
    }
    if downState.first == "active" { downState[0] = "completed" }
  }
}
