import Dispatch
import Foundation
import SignalOperators
import StreamCore
import StreamTesting
import Testing

/// StreamTesting: test doubles, expectation helpers and the conformance kit.
func tourStreamTesting() {
  module("StreamTesting", "test publishers, recorders, expectations and the conformance kit")
  recordWhatAnOperatorAsks()
  expectationHelpers()
  conformanceOfABrokenPublisher()
}

private func recordWhatAnOperatorAsks() {
  section(
    "TestPublisher and RecordingSubscriber: what map and prefix(2) ask upstream",
    look: "upstream gets .max(1), then prefix(2)'s cancel; 3 is dropped, not a violation."
  )
  let upstream = TestPublisher<Int, Never>()
  let recorder = RecordingSubscriber<Int, Never>(initialDemand: .max(1), demandPerValue: .max(1))
  upstream.map { $0 * 10 }.prefix(2).subscribe(recorder)
  for value in 1...3 {
    upstream.send(value)
  }
  // Demand returned from `receive(_:)` is not a request, so only the first request is listed.
  print("upstream.requests:", upstream.requests.map { "\($0)" })
  // 3 came after prefix(2) cancelled: dropped, and not a violation.
  print("upstream.violations:", upstream.violations)
  print(
    "recorder.values:",
    recorder.values,
    "then",
    recorder.completion.map { "\($0)" } ?? "nothing"
  )
  print("recorder.violations:", recorder.violations)
}

private func expectationHelpers() {
  section(
    "Swift Testing's expectation helpers, outside a test",
    look: "what each helper returns; the last shows what a failed publisher gives."
  )
  // The Swift Testing helpers are `async` and take no test case, so they run here too. (The
  // XCTest `expects…` helpers take the running test case, `on: self`; they are left out.)
  let done = DispatchSemaphore(value: 0)
  Task.detached {
    let all = await [1, 2, 3].publisher.expectAll(timeout: .seconds(1))
    print("expectAll:", all)
    let one = await Just("hi").receive(on: DispatchQueue.global()).expectOne(timeout: .seconds(1))
    print("expectOne, from another queue:", one ?? "nil")
    let firstTwo = await (1...).publisher.expectAtLeast(values: 2, timeout: .seconds(1))
    print("expectAtLeast(values: 2) on an endless publisher:", firstTwo)
    let error = await Fail<Int, LookupError>(error: LookupError())
      .expectFailure(timeout: .seconds(1))
    print("expectFailure:", error.map { "\($0)" } ?? "nil")
    // A failed expectation records a Swift Testing issue; only a running test reports it.
    let failed = await Fail<Int, LookupError>(error: LookupError()).expectAll(timeout: .seconds(1))
    print("expectAll on Fail:", failed, "(in a test, also an issue: the publisher failed)")
    done.signal()
  }
  done.wait()
}

/// Sends all its values on the first request, whatever the demand: a deliberately broken
/// publisher. Otherwise it keeps the contract: it stops when cancelled and lets go of its
/// subscriber after the completion. (Not `private`: the report names the type, and a private
/// type's name holds an address that changes from run to run.)
struct IgnoresDemand: Publisher {
  typealias Output = Int
  typealias Failure = Never

  let values: [Int]

  func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == Never {
    subscriber.receive(subscription: Inner(subscriber, values: values))
  }

  // Sendable: `downstream` and `started` are only reached under `lock`; the subscriber is
  // called outside it.
  private final class Inner<Downstream: Subscriber>: Subscription, @unchecked Sendable
  where Downstream.Input == Int, Downstream.Failure == Never {
    private let lock = NSLock()
    private var downstream: Downstream?
    private var started = false
    private let values: [Int]

    init(_ downstream: Downstream, values: [Int]) {
      self.downstream = downstream
      self.values = values
    }

    var description: String { "IgnoresDemand" }

    func request(_ demand: Subscribers.Demand) {
      let first = lock.withLock {
        defer { started = true }
        return !started
      }
      guard first else { return }
      for value in values {  // the bug: `demand` is never looked at
        guard let downstream = lock.withLock({ self.downstream }) else { return }
        _ = downstream.receive(value)
      }
      takeDownstream()?.receive(completion: .finished)
    }

    func cancel() {
      _ = takeDownstream()  // released outside the lock
    }

    private func takeDownstream() -> Downstream? {
      lock.withLock {
        defer { downstream = nil }
        return downstream
      }
    }
  }
}

private func conformanceOfABrokenPublisher() {
  section(
    "The conformance kit judges a publisher that ignores demand",
    look: "the rules IgnoresDemand fails and why; a sound publisher passes them."
  )
  let broken = PublisherConformance(elements: 4, timeout: .milliseconds(200)) {
    IgnoresDemand(values: [1, 2, 3, 4])
  }
  print("IgnoresDemand sends all its values on the first request, whatever the demand.")
  print(broken.run())
  let sound = PublisherConformance(elements: 3) { [1, 2, 3].publisher }
  print("The same rules on [1, 2, 3].publisher:", sound.run().description.prefix { $0 != "\n" })
}
