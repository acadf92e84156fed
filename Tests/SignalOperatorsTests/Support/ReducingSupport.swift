import Dispatch
import StreamCore
import StreamTesting
import Testing

/// What a recorder received, as strings: `"subscription"`, each value's description,
/// `"finished"` and `"failure(<error>)"`; so one check fits every output and failure type.
func reduceTrace<Input, Failure>(_ recorder: RecordingSubscriber<Input, Failure>) -> [String] {
  recorder.events.map { event in
    switch event {
    case .subscription: "subscription"
    case .value(let value): String(describing: value)
    case .completion(.finished): "finished"
    case .completion(.failure(let error)): "failure(\(error))"
    }
  }
}

/// Runs the scenarios every reducing operator shares against `make(upstream)`, where the
/// upstream is a `TestPublisher<Int, TestError>`.
///
/// `values` are sent before the upstream finishes; `expected` is what the operator sends for
/// them (its result, or nothing); `early` says whether the operator decides before the upstream
/// finishes (and then cancels it).
struct ReducingHarness<P: Publisher> {
  typealias Upstream = TestPublisher<Int, TestError>

  let name: String
  let make: (Upstream) -> P

  init(name: String, make: @escaping (Upstream) -> P) {
    self.name = name
    self.make = make
  }

  private func subscribe(
    initialDemand: Subscribers.Demand? = .unlimited,
    demandPerValue: @escaping (P.Output) -> Subscribers.Demand = { _ in .none }
  ) -> (Upstream, RecordingSubscriber<P.Output, P.Failure>) {
    let upstream = Upstream()
    let recorder = RecordingSubscriber<P.Output, P.Failure>(
      initialDemand: initialDemand,
      demandPerValue: demandPerValue
    )
    make(upstream).subscribe(recorder)
    return (upstream, recorder)
  }

  private func send(_ values: [Int], to upstream: Upstream) {
    for value in values { upstream.send(value) }
  }

  private func expectedRequests(early: Bool) -> [Upstream.Request] {
    early ? [.demand(.unlimited), .cancel] : [.demand(.unlimited)]
  }

  /// With unlimited demand: the result, then `.finished`; `.unlimited` requested upstream.
  func checkBasic(_ values: [Int], _ expected: [String], early: Bool = false) {
    let (upstream, recorder) = subscribe()
    #expect(upstream.requests == [.demand(.unlimited)])
    send(values, to: upstream)
    upstream.send(completion: .finished)
    #expect(reduceTrace(recorder) == ["subscription"] + expected + ["finished"])
    #expect(upstream.requests == expectedRequests(early: early))
    #expect(recorder.violations.isEmpty)
    #expect(upstream.violations.isEmpty)
  }

  /// Without demand nothing is sent; the first request sends the result and `.finished`, later
  /// requests nothing more.
  func checkWaitsForDemand(_ values: [Int], _ expected: [String], early: Bool = false) {
    let (upstream, recorder) = subscribe(initialDemand: nil)
    send(values, to: upstream)
    upstream.send(completion: .finished)
    #expect(reduceTrace(recorder) == ["subscription"])
    #expect(upstream.requests == expectedRequests(early: early))
    recorder.request(.max(1))
    #expect(reduceTrace(recorder) == ["subscription"] + expected + ["finished"])
    recorder.request(.max(1))
    #expect(reduceTrace(recorder) == ["subscription"] + expected + ["finished"])
    #expect(recorder.violations.isEmpty)
  }

  /// Demand of one, requested before the values or topped up from `receive`, is enough.
  func checkDemandOfOne(_ values: [Int], _ expected: [String]) {
    let (upstream, recorder) = subscribe(initialDemand: .max(1)) { _ in .max(1) }
    send(values, to: upstream)
    upstream.send(completion: .finished)
    #expect(reduceTrace(recorder) == ["subscription"] + expected + ["finished"])
    #expect(recorder.violations.isEmpty)
  }

  /// A request made from inside `receive(subscription:)` counts; a request from inside
  /// `receive(_:)` adds nothing and breaks nothing.
  func checkRequestFromReceive(_ values: [Int], _ expected: [String]) {
    let holder = SubscriptionHolder()
    let upstream = Upstream()
    let recorder = RecordingSubscriber<P.Output, P.Failure>(initialDemand: nil) { _ in
      holder.subscription?.request(.max(3))
      return .none
    }
    make(upstream).subscribe(recorder)
    holder.subscription = recorder.subscription
    recorder.request(.max(1))
    send(values, to: upstream)
    upstream.send(completion: .finished)
    #expect(reduceTrace(recorder) == ["subscription"] + expected + ["finished"])
    #expect(recorder.violations.isEmpty)
  }

  /// A failure passes through at once, without demand, before or after values.
  func checkFailure(after values: [Int]) {
    let (upstream, recorder) = subscribe(initialDemand: nil)
    send(values, to: upstream)
    upstream.send(completion: .failure(TestError()))
    #expect(reduceTrace(recorder) == ["subscription", "failure(Boom)"])
    recorder.request(.max(1))
    #expect(reduceTrace(recorder) == ["subscription", "failure(Boom)"])
  }

  /// Cancel before values, between values, and after the completion: nothing is sent after it,
  /// the upstream is cancelled once while active and never after the completion.
  func checkCancel(_ values: [Int], _ expected: [String]) {
    let (before, beforeRecorder) = subscribe()
    beforeRecorder.cancel()
    send(values, to: before)
    before.send(completion: .finished)
    #expect(reduceTrace(beforeRecorder) == ["subscription"])
    #expect(before.requests == [.demand(.unlimited), .cancel])

    let (during, duringRecorder) = subscribe(initialDemand: nil)
    send(Array(values.prefix(1)), to: during)
    let subscription = duringRecorder.subscription
    duringRecorder.cancel()
    subscription?.cancel()
    subscription?.request(.max(1))
    send(Array(values.dropFirst()), to: during)
    during.send(completion: .finished)
    #expect(reduceTrace(duringRecorder) == ["subscription"])

    let (after, afterRecorder) = subscribe()
    let afterSubscription = afterRecorder.subscription
    send(values, to: after)
    after.send(completion: .finished)
    let requests = after.requests
    afterSubscription?.cancel()
    #expect(after.requests == requests)
    #expect(reduceTrace(afterRecorder) == ["subscription"] + expected + ["finished"])
  }

  /// A cancel from inside `receive(_:)` stops the `.finished` that would follow the result.
  func checkCancelFromReceive(_ values: [Int]) {
    let holder = SubscriptionHolder()
    let upstream = Upstream()
    let recorder = RecordingSubscriber<P.Output, P.Failure>(initialDemand: nil) { _ in
      holder.subscription?.cancel()
      return .none
    }
    make(upstream).subscribe(recorder)
    holder.subscription = recorder.subscription
    recorder.request(.max(1))
    send(values, to: upstream)
    upstream.send(completion: .finished)
    let trace = reduceTrace(recorder)
    #expect(trace.count == 2)
    #expect(!trace.contains("finished"))
  }

  /// The subscription is released after a cancel and after the completion, while the upstream
  /// and the subscriber are still alive.
  func checkReleased(_ values: [Int]) {
    let (upstream, recorder) = subscribe()
    weak let cancelled = recorder.subscription.map { $0 as AnyObject }
    #expect(cancelled != nil)
    recorder.cancel()
    #expect(cancelled == nil)

    let (finishing, finishedRecorder) = subscribe()
    weak let completed = finishedRecorder.subscription.map { $0 as AnyObject }
    #expect(completed != nil)
    send(values, to: finishing)
    finishing.send(completion: .finished)
    #expect(reduceTrace(finishedRecorder).last == "finished")
    #expect(completed == nil)
    withExtendedLifetime((upstream, recorder, finishing, finishedRecorder)) {}
  }

  /// The subscription describes itself as Combine's does.
  func checkDescription() {
    let (_, recorder) = subscribe()
    #expect(recorder.subscriptionDescription == name)
    #expect(recorder.subscription.map { String(describing: $0) } == name)
  }

  /// Finishing the upstream on one thread while requesting on another sends the result once.
  func checkConcurrentFinishAndRequest(_ values: [Int], _ expected: [String]) {
    for _ in 0..<200 {
      let (upstream, recorder) = subscribe(initialDemand: nil)
      send(values, to: upstream)
      DispatchQueue.concurrentPerform(iterations: 2) { side in
        if side == 0 {
          upstream.send(completion: .finished)
        } else {
          recorder.request(.max(1))
        }
      }
      #expect(reduceTrace(recorder) == ["subscription"] + expected + ["finished"])
      #expect(recorder.violations.isEmpty)
    }
  }

  /// Cancelling on one thread while the upstream sends on another: at most the result already
  /// on its way when `cancel()` ran arrives (the contract allows that one), never a completion
  /// after the cancel, and the upstream is cancelled exactly once.
  func checkConcurrentSendAndCancel(_ values: [Int], _ expected: [String]) {
    let whole = ["subscription"] + expected + ["finished"]
    for _ in 0..<100 {
      let (upstream, recorder) = subscribe()
      DispatchQueue.concurrentPerform(iterations: 2) { side in
        if side == 0 {
          for _ in 0..<20 {
            for value in values { upstream.send(value) }
          }
        } else {
          recorder.cancel()
        }
      }
      upstream.send(completion: .finished)
      let trace = reduceTrace(recorder)
      #expect(whole.starts(with: trace))
      #expect(upstream.requests.filter { $0 == .cancel }.count == 1)
      // The result already on its way when `cancel()` returned, and the `.finished` sent right
      // behind it, may still arrive (the contract's in-flight allowance); nothing else may.
      let violations = recorder.violations
      let inFlight = [
        "received \(expected.first ?? "") after cancel", "received finished after cancel",
      ]
      #expect(violations.count <= 2)
      #expect(violations.allSatisfy { inFlight.contains($0) }, "\(violations)")
    }
  }

  /// A `try` operator whose closure throws on `99`: the upstream is cancelled and the error
  /// goes downstream at once, without demand; later values and completions are ignored.
  func checkThrows(_ values: [Int]) {
    let (upstream, recorder) = subscribe(initialDemand: nil)
    send(values, to: upstream)
    upstream.send(completion: .finished)
    #expect(reduceTrace(recorder) == ["subscription", "failure(Boom(99))"])
    #expect(upstream.requests == [.demand(.unlimited), .cancel])
    recorder.request(.max(1))
    #expect(reduceTrace(recorder) == ["subscription", "failure(Boom(99))"])
  }
}
