import Dispatch
import Foundation
import SignalOperators
import StreamCombineSchedulers
import StreamCore
import StreamFoundation
import Testing

// On Apple platforms Foundation declares these names itself, for Apple's Combine; declaring
// them again would make every use ambiguous, so StreamFoundation provides them elsewhere only.
#if !canImport(Darwin)

@Suite(.timeLimit(.minutes(5)))
struct OperationQueueSchedulerTests {
  private static func serialQueue() -> OperationQueue {
    let queue = OperationQueue()
    queue.maxConcurrentOperationCount = 1
    return queue
  }

  @Test func schedule_runsAsAnOperationOfTheQueue_inOrder() async {
    let queue = Self.serialQueue()
    let order = Collected<Int>()
    for index in 0..<50 {
      queue.schedule {
        #expect(OperationQueue.current === queue)
        order.append(index)
      }
    }
    #expect(await order.wait(for: 50))
    #expect(order.items == Array(0..<50))
  }

  @Test func scheduleAfter_runsInDueOrder() async {
    let queue = Self.serialQueue()
    let order = Collected<String>()
    let now = queue.now
    queue.schedule(after: now.advanced(by: .milliseconds(40))) { order.append("late") }
    queue.schedule(after: now.advanced(by: .milliseconds(10))) { order.append("early") }
    queue.schedule { order.append("now") }
    #expect(await order.wait(for: 3))
    #expect(order.items.filter { $0 != "now" } == ["early", "late"])
    #expect(order.items.contains("now"))
    #expect(queue.now.date >= now.date.addingTimeInterval(0.04))
  }

  @Test func aRepeatingAction_runsUntilCancelled() async {
    let queue = Self.serialQueue()
    let ticks = Collected<Void>()
    let token = queue.schedule(after: queue.now, interval: .milliseconds(5)) { ticks.append(()) }
    #expect(await ticks.wait(for: 3))
    token.cancel()
    // Operations already added may still run; after they have, no more come.
    let drained = Collected<Int>()
    queue.schedule(after: queue.now.advanced(by: .milliseconds(20))) {
      drained.append(ticks.items.count)
    }
    #expect(await drained.wait(for: 1))
    let marker = Collected<Void>()
    queue.schedule(after: queue.now.advanced(by: .milliseconds(30))) { marker.append(()) }
    #expect(await marker.wait(for: 1))
    #expect(ticks.items.count == drained.items[0])
  }

  /// As Combine's (OpenCombine's `OperationQueueSchedulerTests.…WithTestQueue`): an action is
  /// added as a `BlockOperation`, a delayed one at once as an operation that becomes ready at
  /// its date and runs its action once.
  @Test func delayedAction_isAddedAtOnce_andWaitedFor() {
    let queue = RecordingQueue()
    let runs = LockedState(0)
    queue.schedule { runs.withLock { $0 += 1 } }
    queue.schedule(after: queue.now.advanced(by: .milliseconds(50))) {
      runs.withLock { $0 += 1 }
    }
    let added = queue.added.withLock { $0 }
    #expect(added.count == 2)
    #expect(added.first is BlockOperation)
    let delayed = added.last
    #expect(!(delayed is BlockOperation))
    #expect(delayed is any Cancellable)
    #expect(delayed?.isReady == false)
    queue.waitUntilAllOperationsAreFinished()
    #expect(runs.withLock { $0 } == 2)
    delayed?.main()
    #expect(runs.withLock { $0 } == 2)
  }

  /// A repeating action adds the next operation each time it runs, until cancelled.
  @Test func repeatingAction_addsTheNextOperationEachRun() async {
    let queue = RecordingQueue()
    let ticks = Collected<Void>()
    let token = queue.schedule(after: queue.now, interval: .milliseconds(5)) { ticks.append(()) }
    #expect(await ticks.wait(for: 3))
    token.cancel()
    await withCheckedContinuation { (finished: CheckedContinuation<Void, Never>) in
      DispatchQueue.global().async {
        queue.waitUntilAllOperationsAreFinished()  // the cancelled one leaves at once
        finished.resume()
      }
    }
    // Every run added the next operation, and only the last, cancelled before or while it ran,
    // may not have run.
    let count = ticks.items.count
    let added = queue.added.withLock { $0.count }
    #expect(added == count || added == count + 1)
  }

  @Test func receiveOnAnOperationQueue_deliversThereInOrder() async {
    let queue = Self.serialQueue()
    let subject = PassthroughSubject<Int, Never>()
    let seen = Collected<String>()
    let cancellable = subject.receive(on: queue).sink(
      receiveCompletion: { _ in seen.append("finished \(OperationQueue.current === queue)") },
      receiveValue: { seen.append("\($0) \(OperationQueue.current === queue)") }
    )
    subject.send(1)
    subject.send(2)
    subject.send(completion: .finished)
    #expect(await seen.wait(for: 3))
    #expect(seen.items == ["1 true", "2 true", "finished true"])
    cancellable.cancel()
  }

  @Test func schedulerTypes_mainAndImmediate() {
    let main: AnySchedulerOf<OperationQueue> = .main
    let immediate: AnySchedulerOf<OperationQueue> = .immediate
    let ran = Collected<String>()
    immediate.schedule { ran.append("immediate") }
    OperationQueue.immediate.schedule(after: OperationQueue.immediate.now.advanced(by: 60)) {
      ran.append("typed")
    }
    #expect(ran.items == ["immediate", "typed"])
    #expect(abs(main.now.date.timeIntervalSinceNow) < 60)
    #expect(OperationQueue.main.minimumTolerance == 0)
  }
}

/// An operation queue that records the operations added to it.
private final class RecordingQueue: OperationQueue, @unchecked Sendable {
  // Unchecked: `added` is locked.
  let added = LockedState<[Operation]>([])

  override func addOperation(_ operation: Operation) {
    added.withLock { $0.append(operation) }
    super.addOperation(operation)
  }
}

#endif
