import Dispatch
import FutureKit
import StreamConbini
import StreamCore
import StreamPropagate
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct FutureRaceTests {
  @Test func twoThreadsResolving_exactlyOneWins() {
    for _ in 0..<500 {
      let promise = Promise<Int, FutureTestError>()
      let wins = LockedState<[Int]>([])
      DispatchQueue.concurrentPerform(iterations: 2) { index in
        let won =
          index == 0 ? promise.resolve(index) : promise.complete(withResult: .failure(.first))
        if won { wins.withLock { $0.append(index) } }
      }
      let winners = wins.withLock { $0 }
      #expect(winners.count == 1)
      if winners == [0] {
        #expect(promise.future.resolvedValue == 0)
      } else {
        #expect(promise.future.error == .first)
      }
    }
  }

  @Test func callbacksAddedWhileAnotherThreadResolves_eachRunsExactlyOnce() async {
    for _ in 0..<200 {
      let promise = Promise<Int, Never>()
      let runs = LockedState([Int](repeating: 0, count: 50))
      DispatchQueue.concurrentPerform(iterations: 2) { index in
        if index == 0 {
          for callback in 0..<50 {
            promise.future.onSuccess { _ in runs.withLock { $0[callback] += 1 } }
          }
        } else {
          promise.resolve(1)
        }
      }
      await promise.future.waitForCallbacks()
      #expect(runs.withLock { $0 } == [Int](repeating: 1, count: 50))
    }
  }

  @Test func subscribersAddedWhileAnotherThreadResolves_eachReceivesOnce() {
    for _ in 0..<200 {
      let promise = Promise<Int, Never>()
      let recorders = (0..<20).map { _ in RecordingSubscriber<Int, Never>() }
      DispatchQueue.concurrentPerform(iterations: 2) { index in
        if index == 0 {
          for recorder in recorders { promise.future.subscribe(recorder) }
        } else {
          promise.resolve(7)
        }
      }
      for recorder in recorders {
        #expect(recorder.events == [.subscription, .value(7), .completion(.finished)])
        #expect(recorder.violations.isEmpty)
      }
    }
  }

  @Test func requestRacingResolve_deliversExactlyOnce() throws {
    for _ in 0..<300 {
      let promise = Promise<Int, Never>()
      let recorder = RecordingSubscriber<Int, Never>(initialDemand: nil)
      promise.future.subscribe(recorder)
      let subscription = SendableByContract(try #require(recorder.subscription))
      DispatchQueue.concurrentPerform(iterations: 3) { index in
        switch index {
        case 0: promise.resolve(2)
        default: subscription.wrapped.request(.max(1))
        }
      }
      #expect(recorder.events == [.subscription, .value(2), .completion(.finished)])
    }
  }

  @Test func cancelRacingResolve_sendsNothingOrTheValueButNothingAfterIt() throws {
    for _ in 0..<300 {
      let promise = Promise<Int, Never>()
      let recorder = RecordingSubscriber<Int, Never>()
      promise.future.subscribe(recorder)
      let subscription = SendableByContract(try #require(recorder.subscription))
      DispatchQueue.concurrentPerform(iterations: 2) { index in
        if index == 0 { promise.resolve(1) } else { subscription.wrapped.cancel() }
      }
      // Either the cancel came first, or the delivery did; a value already on its way when the
      // cancel lands still arrives, but then no completion follows it.
      let events = recorder.events
      #expect(
        events == [.subscription] || events == [.subscription, .value(1)]
          || events == [.subscription, .value(1), .completion(.finished)]
      )
      #expect(recorder.violations.isEmpty)
    }
  }

  @Test func concurrentCombinatorInputs_completeOnce() async {
    for _ in 0..<200 {
      let promises = (0..<4).map { _ in Promise<Int, FutureTestError>() }
      let merged = Future.merge(promises.map(\.future))
      let completions = LockedState(0)
      merged.finally { _ in completions.withLock { $0 += 1 } }
      DispatchQueue.concurrentPerform(iterations: 4) { index in
        promises[index].resolve(index)
      }
      #expect(merged.resolvedValue == [0, 1, 2, 3])
      await merged.waitForCallbacks()
      #expect(completions.withLock { $0 } == 1)
    }
  }
}
