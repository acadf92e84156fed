import Dispatch
import SignalOperators
import StreamCore
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct DispatchTests {
  @Test func dispatchToQueue_deliversOnTheQueue() {
    let queue = DispatchQueue(label: "SwiftyDispatchTests")
    let key = DispatchSpecificKey<Int>()
    queue.setSpecific(key: key, value: 7)
    let done = DispatchSemaphore(value: 0)
    let onQueue = LockedState<[Int?]>([])
    let cancellable = [1, 2].publisher.dispatch(to: queue)
      .sink(
        receiveCompletion: { _ in done.signal() },
        receiveValue: { _ in onQueue.withLock { $0.append(DispatchQueue.getSpecific(key: key)) } }
      )
    #expect(done.wait(timeout: .now() + 60) == .success)
    #expect(onQueue.withLock { $0 } == [7, 7])
    cancellable.cancel()
  }

  @Test func dispatchQoS_deliversOffTheCallingThreadInOrder() {
    let done = DispatchSemaphore(value: 0)
    let values = LockedState<[Int]>([])
    let cancellable = Array(0..<100).publisher.dispatch(qos: .userInitiated)
      .sink(
        receiveCompletion: { _ in done.signal() },
        receiveValue: { v in values.withLock { $0.append(v) } }
      )
    #expect(done.wait(timeout: .now() + 60) == .success)
    #expect(values.withLock { $0 } == Array(0..<100))
    cancellable.cancel()
  }

  @Test func noDispatch_deliversSynchronously() {
    let recorder = RecordingSubscriber<Int, Never>()
    [1, 2].publisher.noDispatch().subscribe(recorder)
    #expect(recorder.values == [1, 2])
  }
}
