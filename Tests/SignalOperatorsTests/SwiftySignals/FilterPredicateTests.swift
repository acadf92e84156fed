import SignalOperators
import StreamCore
import StreamSwiftySignals
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct FilterPredicateTests {
  /// SwiftySignals' spelling on a signal's publisher.
  @Test func passesTheAcceptedValues() {
    let signal = Signal<Int>()
    let recorder = RecordingSubscriber<Int, Never>()
    signal.fired.onFiringThread().filter(predicate: { $0.isMultiple(of: 2) }).subscribe(recorder)
    for message in 1...6 { signal.fire(message) }
    #expect(recorder.values == [2, 4, 6])
  }

  /// The disfavoured overload leaves the trailing-closure form to Combine's `filter(_:)`, whose
  /// `Filter` fuses with a `Filter` upstream.
  @Test func trailingClosure_isCombinesFilter() {
    let fused = [1, 2, 3, 4].publisher.filter(predicate: { $0 > 1 }).filter { $0 < 4 }
    #expect(fused.upstream.sequence == [1, 2, 3, 4])
    let recorder = RecordingSubscriber<Int, Never>()
    fused.subscribe(recorder)
    #expect(recorder.values == [2, 3])
  }
}
