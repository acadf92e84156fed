// Planted bugs for the oracle's self-test (issue 42): each mutant is a real StreamKit operator
// with one bug switched on at run time, here in the Differential package, never in the library.
// `Differential --self-test` runs the oracle against each and fails unless every one is
// reported as a new difference in the channel its bug shows in.
//
// A mutant changes what crosses one of two edges of the scenario, so that the trace is the one
// the buggy operator would leave:
//   - between the operator and its scripted downstream, a `MutantSubscriber` (values lost,
//     extra, reordered or wrong; a completion early, missing or of the wrong kind; demand
//     returned wrong; the downstream released while active; a wrong description), which passes
//     everything else through unchanged, the operator's own subscription included;
//   - between the operator and its scripted upstream (a request not forwarded or of the wrong
//     size, a cancel not forwarded), in `ScriptedSubscription`.
// With no mutant active both edges are what they were; `Differential --mutant none` checks that
// the subscriber in between changes nothing (the run must show no new difference).
// This file is compiled for StreamKit only (it is not linked into OpenCombineScenarios).

import DiffModel
import SignalOperators
import StreamCore

/// One planted bug.
public struct Mutant: Sendable {
  /// A short name, for `--mutant NAME`.
  public let name: String
  /// The operator it is planted in.
  public let op: String
  /// The channel the bug must be reported in.
  public let channel: Channel
  /// What the bug does.
  public let summary: String
}

public enum Mutants {
  /// The mutant switched on in this process (`--child streamkit --mutant NAME`); `nil`: none.
  nonisolated(unsafe) public static var active: Mutant?

  /// `none` wraps every downstream in a `MutantSubscriber` that changes nothing.
  public static let none = Mutant(
    name: "none",
    op: "*",
    channel: .events,
    summary: "no bug: the subscriber between operator and downstream passes everything through"
  )

  /// Every planted bug.
  public static let all: [Mutant] = [
    .init(
      name: "lost-value",
      op: "map",
      channel: .events,
      summary: "map loses its second value"
    ),
    .init(
      name: "wrong-tuple",
      op: "zip",
      channel: .events,
      summary: "zip's second tuple has a wrong second element"
    ),
    .init(
      name: "extra-value",
      op: "compactMap",
      channel: .events,
      summary: "compactMap delivers its third value twice"
    ),
    .init(
      name: "reordered-values",
      op: "buffer.byRequest.dropNewest",
      channel: .events,
      summary: "buffer delivers its first two values in reverse order"
    ),
    .init(
      name: "spurious-replacement",
      op: "replaceEmpty",
      channel: .events,
      summary: "replaceEmpty sends its replacement before finishing even after values"
    ),
    .init(
      name: "never-replaces",
      op: "replaceError",
      channel: .events,
      summary: "replaceError finishes without sending its replacement"
    ),
    .init(
      name: "early-finish",
      op: "prefix(2)",
      channel: .events,
      summary: "prefix(2) finishes (and cancels its upstream) after one value"
    ),
    .init(
      name: "missing-finish",
      op: "filter",
      channel: .events,
      summary: "filter never passes on the upstream's finish"
    ),
    .init(
      name: "failure-as-finish",
      op: "tryMap",
      channel: .events,
      summary: "tryMap finishes where it should fail"
    ),
    .init(
      name: "request-not-forwarded",
      op: "zip",
      channel: .events,
      summary: "zip does not forward its second request to its second upstream"
    ),
    .init(
      name: "wrong-request",
      op: "filter",
      channel: .events,
      summary: "filter asks its upstream for one more than requested"
    ),
    .init(
      name: "cancel-not-forwarded",
      op: "tryScan",
      channel: .events,
      summary:
        "tryScan does not cancel its upstream (tryScan's I8 entry covers calls after the end)"
    ),
    .init(
      name: "wrong-returned-demand",
      op: "map",
      channel: .events,
      summary: "map returns one more than its subscriber returned"
    ),
    .init(
      name: "released-while-active",
      op: "map",
      channel: .lifecycle,
      summary: "map lets go of its subscriber after the first value, while still active"
    ),
    .init(
      name: "wrong-description",
      op: "map",
      channel: .descriptions,
      summary: "map's subscription describes itself as `Mapping`"
    ),
    .init(
      name: "missing-print-line",
      op: "print",
      channel: .events,
      summary: "print does not log the value 3"
    ),
    .init(
      name: "second-subscriber-starved",
      op: "share",
      channel: .events,
      summary: "share delivers nothing to its second subscriber"
    ),
  ]

  /// The planted bug of the concurrency checks (ConcurrencyScenarios.swift): a subscriber
  /// that two threads send to loses one value.
  public static let concurrency = Mutant(
    name: "concurrent-lost-value",
    op: "concurrency",
    channel: .events,
    summary: "a value sent from one of two threads is lost"
  )

  /// The mutant of `name` (`none` too).
  public static func named(_ name: String) -> Mutant? {
    [none, concurrency].first { $0.name == name } ?? all.first { $0.name == name }
  }

  /// The mutant active for operator `op`, if any.
  static func active(for op: String) -> Mutant? {
    guard let mutant = active, mutant.op == "*" || mutant.op == op else { return nil }
    return mutant
  }

  /// Subscribes `downstream` to `publisher`, through a `MutantSubscriber` when a mutant is
  /// active for the script's operator.
  static func subscribe<P: Publisher>(
    _ publisher: P,
    _ downstream: Downstream<P.Output, P.Failure>,
    world: World
  ) {
    guard let mutant = active(for: world.script.op) else {
      publisher.subscribe(downstream)
      return
    }
    publisher.subscribe(MutantSubscriber(downstream, mutant: mutant.name))
  }

  /// The demand a scripted upstream's subscription passes on for a `request(_:)` from the
  /// operator, or `nil` to drop the call: a request or cancel the mutant doesn't forward.
  static func request(
    _ demand: Subscribers.Demand,
    upstream: Int,
    count: Int,
    world: World
  ) -> Subscribers.Demand? {
    switch active(for: world.script.op)?.name {
    case "request-not-forwarded" where upstream == 1 && count == 2: nil
    case "wrong-request": demand == .unlimited ? demand : demand + 1
    default: demand
    }
  }

  /// Whether a scripted upstream's subscription passes on a `cancel()` from the operator.
  static func forwardsCancel(world: World) -> Bool {
    active(for: world.script.op)?.name != "cancel-not-forwarded"
  }

  /// Whether `print`'s line reaches the trace.
  static func keepsPrinted(_ line: String, world: World) -> Bool {
    active(for: world.script.op)?.name != "missing-print-line" || !line.contains("value: (3)")
  }
}

/// Sits between an operator and its scripted downstream and plants the active mutant's bug in
/// what crosses. Its description is the downstream's, so operators' mirrors read the same.
final class MutantSubscriber<Downstream: Subscriber & AnyObject>: Subscriber,
  CustomStringConvertible
{
  typealias Input = Downstream.Input
  typealias Failure = Downstream.Failure

  private let mutant: String
  private var strong: Downstream?
  private weak var weak: Downstream?
  private var subscription: (any Subscription)?
  private var values = 0
  private var held: Input?
  private var ended = false

  init(_ downstream: Downstream, mutant: String) {
    strong = downstream
    weak = downstream
    self.mutant = mutant
  }

  var description: String { weak.map { String(describing: $0) } ?? "MutantSubscriber" }

  private var downstream: Downstream? { weak }

  /// Whether this is the downstream number `index`.
  private var index: Int { (weak as? any ScriptedDownstreamIndex)?.scriptIndex ?? 0 }

  func receive(subscription: any Subscription) {
    self.subscription = subscription
    if mutant == "wrong-description" {
      downstream?.receive(subscription: Described(subscription, as: "Mapping"))
    } else {
      downstream?.receive(subscription: subscription)
    }
  }

  // `ended` is set only by the mutants that end early or swallow a completion; otherwise every
  // call passes through, even one that breaks the contract, as without this subscriber.
  func receive(_ input: Input) -> Subscribers.Demand {
    guard !ended, let downstream else { return .none }
    values += 1
    switch mutant {
    case "lost-value" where values == 2:
      return .none
    case "wrong-tuple" where values == 2:
      guard let (a, b) = input as? (Int, Int), let wrong = (a, b + 1) as? Input else { break }
      return downstream.receive(wrong)
    case "extra-value" where values == 3:
      let first = downstream.receive(input)
      return first + downstream.receive(input)
    case "reordered-values" where values == 1:
      held = input
      return .none
    case "reordered-values" where values == 2:
      let first = downstream.receive(input)
      guard let earlier = held.take() else { return first }
      return first + downstream.receive(earlier)
    case "never-replaces" where (input as? Int) == 42:
      return .none
    case "early-finish" where values == 1:
      let more = downstream.receive(input)
      ended = true
      subscription?.cancel()
      downstream.receive(completion: .finished)
      return more
    case "wrong-returned-demand":
      let more = downstream.receive(input)
      return more == .unlimited ? more : more + 1
    case "released-while-active" where values == 1:
      strong = nil
    case "second-subscriber-starved" where index == 1:
      return .none
    default:
      break
    }
    return downstream.receive(input)
  }

  func receive(completion: Subscribers.Completion<Failure>) {
    guard !ended, let downstream else { return }
    if case .finished = completion {
      switch mutant {
      case "missing-finish":
        ended = true
        return
      case "spurious-replacement" where values > 0:
        if let replacement = 42 as? Input { _ = downstream.receive(replacement) }
      case "reordered-values":
        if let earlier = held.take() { _ = downstream.receive(earlier) }
      default:
        break
      }
    } else if mutant == "failure-as-finish" {
      downstream.receive(completion: .finished)
      return
    }
    downstream.receive(completion: completion)
  }
}

/// A subscription passed through with another description (the `wrong-description` mutant).
final class Described: Subscription, CustomStringConvertible {
  let base: any Subscription
  let description: String
  init(_ base: any Subscription, as description: String) {
    self.base = base
    self.description = description
  }
  func request(_ demand: Subscribers.Demand) { base.request(demand) }
  func cancel() { base.cancel() }
}

/// Tells a `MutantSubscriber` which scripted downstream it is in front of.
protocol ScriptedDownstreamIndex: AnyObject {
  var scriptIndex: Int { get }
}

extension Downstream: ScriptedDownstreamIndex {
  var scriptIndex: Int { index }
}
