import SignalOperators
import StreamCore
import StreamSwiftySignals
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct MapTransformTests {
  /// SwiftySignals' spelling on a signal's publisher.
  @Test func transformsEachValue() {
    let signal = Signal<Int>()
    let recorder = RecordingSubscriber<String, Never>()
    signal.fired.onFiringThread().map(transform: { "#\($0)" }).subscribe(recorder)
    signal.fire(1)
    signal.fire(2)
    #expect(recorder.values == ["#1", "#2"])
  }

  /// The disfavoured overload leaves the trailing-closure form to Combine's `map(_:)`, whose
  /// `Map` fuses with a `Map` upstream.
  @Test func trailingClosure_isCombinesMap() {
    let fused = [1, 2].publisher.map(transform: { $0 * 10 }).map { $0 + 1 }
    #expect(fused.upstream.sequence == [1, 2])
    let recorder = RecordingSubscriber<Int, Never>()
    fused.subscribe(recorder)
    #expect(recorder.values == [11, 21])
  }
}
