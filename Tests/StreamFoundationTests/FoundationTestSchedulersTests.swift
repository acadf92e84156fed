import Foundation
import SignalOperators
import StreamCombineSchedulers
import StreamCore
import StreamFoundation
import StreamTesting
import Testing

// On Apple platforms Foundation declares these names itself, for Apple's Combine; declaring
// them again would make every use ambiguous, so StreamFoundation provides them elsewhere only.
#if !canImport(Darwin)

/// `RunLoop.test`, `OperationQueue.test` and `.unimplemented` stand in for Foundation's
/// schedulers in `AnySchedulerOf<…>` code.
@Suite(.timeLimit(.minutes(5)))
struct FoundationTestSchedulersTests {
  /// Code typed to a run loop's scheduler, as an app would write it.
  private final class Model: @unchecked Sendable {
    private(set) var results: [String] = []
    private var cancellable: AnyCancellable?
    let query = PassthroughSubject<String, Never>()

    init(scheduler: AnySchedulerOf<RunLoop>) {
      cancellable = query.debounce(for: .milliseconds(300), scheduler: scheduler)
        .sink { [unowned self] in results.append($0) }
    }
  }

  @Test func runLoopTest_drivesADebounceTypedToARunLoop() {
    let scheduler = RunLoop.test
    let model = Model(scheduler: scheduler.eraseToAnyScheduler())
    model.query.send("s")
    model.query.send("sw")
    scheduler.advance(by: .milliseconds(299))
    #expect(model.results == [])
    scheduler.advance(by: .milliseconds(1))
    #expect(model.results == ["sw"])
    #expect(abs(scheduler.now.date.timeIntervalSince1970 - 0.3) < 1e-6)
  }

  @Test func operationQueueTest_runsRepeatingWorkAsTimeMoves() {
    let scheduler = OperationQueue.test
    let ticks = Collected<OperationQueue.SchedulerTimeType>()
    let token = scheduler.schedule(after: scheduler.now, interval: 1) {
      ticks.append(scheduler.now)
    }
    scheduler.advance(by: 2)
    #expect(
      ticks.items.map(\.date.timeIntervalSince1970) == [0, 1, 2]
    )
    token.cancel()
    scheduler.advance(by: 5)
    #expect(ticks.items.count == 3)
  }

  @Test func unimplemented_failsTheTest_namingTheScheduler() {
    withKnownIssue {
      RunLoop.unimplemented.schedule {}
    } matching: { issue in
      issue.comments.contains { $0.rawValue.contains("RunLoop: an unimplemented scheduler") }
    }
    withKnownIssue {
      OperationQueue.unimplemented("upload").schedule {}
    } matching: { issue in
      issue.comments.contains { $0.rawValue.contains("upload: an unimplemented scheduler") }
    }
  }
}

#endif
