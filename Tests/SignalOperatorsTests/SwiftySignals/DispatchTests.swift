import Dispatch
import SignalOperators
import StreamCore
import StreamSwiftySignals
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

  @Test func noDispatch_deliversOnAPrivateSerialQueue_neverMain() async {
    let log = SwiftyLog<String>()
    let cancellable = await MainActor.run {
      Array(1...3).publisher.noDispatch()
        .sink { log.append("\($0) \(SwiftyMainQueue.isCurrent ? "main" : "private")") }
    }
    #expect(await log.wait(forCount: 3))
    #expect(log.entries == ["1 private", "2 private", "3 private"])
    cancellable.cancel()
  }
}
