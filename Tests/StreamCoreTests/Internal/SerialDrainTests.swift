import Dispatch
import Testing

@testable import StreamCore

@Suite(.timeLimit(.minutes(5))) struct SerialDrainTests {
  @Test func claim_succeedsOnceUntilReleased() {
    var drain = SerialDrain()
    let step1 = drain.claim()
    #expect(step1)
    let step2 = drain.claim()
    #expect(!step2)
    #expect(drain.isClaimed)
    drain.release()
    #expect(!drain.isClaimed)
    let step3 = drain.claim()
    #expect(step3)
  }

  @Test func run_performsStepsUntilNextReturnsNil() {
    let lock = Lock()
    nonisolated(unsafe) var pending = [1, 2, 3]
    nonisolated(unsafe) var drain = SerialDrain()
    let step1 = drain.claim()
    #expect(step1)
    var performed: [Int] = []
    SerialDrain.run(lock) { () -> Int? in
      guard !pending.isEmpty else {
        drain.release()
        return nil
      }
      return pending.removeFirst()
    } perform: { step in
      performed.append(step)
      return true
    }
    #expect(performed == [1, 2, 3])
    #expect(!drain.isClaimed)
  }

  @Test func run_stopsWhenPerformSaysTheDrainEnded() {
    let lock = Lock()
    var calls = 0
    SerialDrain.run(lock) { () -> Int? in
      calls += 1
      return calls
    } perform: { step in
      step < 2
    }
    #expect(calls == 2)
  }

  /// Threads add work and claim; exactly one delivers at a time and nothing is left behind.
  @Test func concurrentProducers_neverOverlapAndLoseNothing() {
    final class Storage: @unchecked Sendable {
      let lock = Lock()
      var queue = RingBuffer<Int>()
      var drain = SerialDrain()
      var delivered: [Int] = []
      var inside = 0
      var overlaps = 0

      func add(_ value: Int) {
        let claimed = lock.withLock {
          queue.append(value)
          return drain.claim()
        }
        guard claimed else { return }
        SerialDrain.run(lock) { () -> Int? in
          if let value = queue.popFirst() { return value }
          drain.release()
          return nil
        } perform: { value in
          inside += 1
          if inside > 1 { overlaps += 1 }
          delivered.append(value)
          inside -= 1
          return true
        }
      }
    }
    let storage = Storage()
    DispatchQueue.concurrentPerform(iterations: 4) { thread in
      for value in 0..<2_000 { storage.add(thread * 10_000 + value) }
    }
    storage.lock.withLock {
      #expect(storage.delivered.count == 8_000)
      #expect(Set(storage.delivered).count == 8_000)
      #expect(storage.overlaps == 0)
      #expect(!storage.drain.isClaimed)
    }
  }
}
