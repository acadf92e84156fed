import Foundation
import SignalOperators
import StreamCore
import StreamFoundation

// On Apple platforms Foundation declares these names itself, for Apple's Combine; declaring
// them again would make every use ambiguous, so StreamFoundation provides them elsewhere only.
#if !canImport(Darwin)

/// StreamFoundation: Foundation's schedulers and publishers.
func tourStreamFoundation() {
  module("StreamFoundation", "Foundation's timers, run loops and operation queues")
  timerOnThisRunLoop()
  receiveOnAnOperationQueue()
}

private func timerOnThisRunLoop() {
  section(
    "Timer.publish on this thread's run loop, autoconnected, three ticks",
    look: "three ticks, each later than the one before, then finished once prefix(3) is done."
  )
  let start = Date()
  var last = start
  var finished = false
  let cancellable = Timer.publish(every: 0.02, on: .current, in: .default)
    .autoconnect()
    .prefix(3)
    .sink(
      receiveCompletion: { _ in
        print("finished")
        finished = true
      },
      receiveValue: { date in
        print("tick, later than the last:", date > last)
        last = date
      }
    )
  // Nothing runs a run loop by itself: run this one until the timer is done (at most 10 s).
  while !finished && Date().timeIntervalSince(start) < 10 {
    _ = RunLoop.current.run(mode: .default, before: Date(timeIntervalSinceNow: 0.05))
  }
  cancellable.cancel()
}

private func receiveOnAnOperationQueue() {
  section(
    "receive(on:) an OperationQueue with one operation at a time",
    look: "1, 2, 3 in order, each on the queue, then finished."
  )
  let queue = OperationQueue()
  queue.maxConcurrentOperationCount = 1
  let cancellable = [1, 2, 3].publisher
    .receive(on: queue)
    .sink(
      receiveCompletion: { _ in print("finished") },
      receiveValue: { print($0, "on the queue:", OperationQueue.current === queue) }
    )
  queue.waitUntilAllOperationsAreFinished()
  cancellable.cancel()
}

#endif
