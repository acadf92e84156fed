import Foundation
import SignalOperators
import StreamCore
import StreamSwiftySignals
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct DebounceTimeoutTests {
  let upstream = TestPublisher<Int, SwiftyTestError>()
  let scheduler = TestScheduler()

  @Test func burst_onlyLastValueAfterTimeout() {
    let recorder = RecordingSubscriber<Int, SwiftyTestError>()
    upstream.debounce(timeout: .milliseconds(300), scheduler: scheduler).subscribe(recorder)
    upstream.send(1)
    scheduler.advance(by: .milliseconds(200))
    upstream.send(2)
    scheduler.advance(by: .milliseconds(299))
    #expect(recorder.values.isEmpty)
    scheduler.advance(by: .milliseconds(1))
    #expect(recorder.values == [2])
  }

  @Test func continuousFastStream_neverEmits() {
    let recorder = RecordingSubscriber<Int, SwiftyTestError>()
    upstream.debounce(timeout: .milliseconds(300), scheduler: scheduler).subscribe(recorder)
    for value in 0..<20 {
      upstream.send(value)
      scheduler.advance(by: .milliseconds(100))
    }
    #expect(recorder.values.isEmpty)
  }

  @Test func measurementOverload_convertsUnits() {
    let recorder = RecordingSubscriber<Int, SwiftyTestError>()
    upstream.debounce(
      timeout: Measurement(value: 0.5, unit: UnitDuration.seconds),
      scheduler: scheduler
    )
    .subscribe(recorder)
    upstream.send(1)
    scheduler.advance(by: .milliseconds(499))
    #expect(recorder.values.isEmpty)
    scheduler.advance(by: .milliseconds(1))
    #expect(recorder.values == [1])
  }

  @Test func failurePassesThrough() {
    let recorder = RecordingSubscriber<Int, SwiftyTestError>()
    upstream.debounce(timeout: .seconds(1), scheduler: scheduler).subscribe(recorder)
    upstream.send(completion: .failure(SwiftyTestError()))
    scheduler.advance(by: .seconds(1))
    #expect(recorder.completion == .failure(SwiftyTestError()))
  }
}
