import Dispatch
import FutureKit
import StreamConbini
import StreamConcurrency
import StreamCore
import StreamPropagate
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct FutureConformanceTests {
  @Test func resolvedFuture_conforms() {
    PublisherConformance(
      elements: 1,
      makePublisher: { Future<Int, FutureTestError> { $0(.success(1)) } },
      makeFailingPublisher: { Future<Int, FutureTestError> { $0(.failure(.first)) } }
    )
    .run()
    .expectAllPassed(skipping: ["SC-1.05", "SC-3.02"])
  }

  @Test func propagateStyleFutures_conform() {
    PublisherConformance(
      elements: 1,
      makePublisher: { Promise<Int, FutureTestError>(value: 1).future },
      makeFailingPublisher: { Future<Int, FutureTestError>.error(.second) }
    )
    .run()
    .expectAllPassed(skipping: ["SC-1.05", "SC-3.02"])
  }

  @Test func futureResolvedLaterFromAnotherThread_conforms() {
    // A global queue can lag well past the kit's default 1 s when ThreadSanitizer and the rest of
    // the suite load both cores.
    PublisherConformance(
      elements: 1,
      timeout: .seconds(120),
      makePublisher: {
        Future<Int, FutureTestError> { promise in
          DispatchQueue.global().async { promise(.success(1)) }
        }
      },
      makeFailingPublisher: {
        Future<Int, FutureTestError> { promise in
          DispatchQueue.global().async { promise(.failure(.first)) }
        }
      }
    )
    .run()
    .expectAllPassed(skipping: ["SC-1.05", "SC-3.02"])
  }

  @Test func taskBackedFuture_conforms() async {
    let kit = PublisherConformance(
      elements: 1,
      timeout: .seconds(120),
      makePublisher: { Future<Int, FutureTestError> { () async throws(FutureTestError) in 1 } },
      makeFailingPublisher: {
        Future<Int, FutureTestError> { () async throws(FutureTestError) in throw .third }
      }
    )
    // The kit blocks its thread while it waits; run it off the cooperative pool, which the
    // futures' tasks need.
    let report = await withCheckedContinuation { continuation in
      DispatchQueue.global().async { continuation.resume(returning: kit.run()) }
    }
    report.expectAllPassed(skipping: ["SC-1.05", "SC-3.02"])
  }
}
