import SignalOperators
import StreamCombineExt
import StreamCore
import StreamTesting
import Testing

/// `ReplaySubject.subscriptions`, the name CombineExt's tests read (item 6 of issue 39); the
/// subject's other behaviour is tested with Snail's `Replay` in `Snail/ReplaySubjectTests`.
@Suite(.timeLimit(.minutes(5))) struct ReplaySubjectSubscriptionsTests {
  // CombineExt's `testRemovesSubscriptionsAfterCancellation`.
  @Test func subscriptions_listTheLiveOnes_inOrder_andLoseACancelledOne() {
    let subject = ReplaySubject<Int, Never>(bufferSize: 1)
    #expect(subject.subscriptions.isEmpty)
    let first = RecordingSubscriber<Int, Never>(initialDemand: nil)
    let second = RecordingSubscriber<Int, Never>(initialDemand: nil)
    subject.subscribe(first)
    subject.subscribe(second)
    let identifiers = { subject.subscriptions.map(\.combineIdentifier) }
    #expect(
      identifiers() == [
        first.subscription?.combineIdentifier, second.subscription?.combineIdentifier,
      ]
    )
    first.cancel()
    #expect(identifiers() == [second.subscription?.combineIdentifier])
    second.cancel()
    #expect(subject.subscriptions.isEmpty)
  }

  @Test func subscriptions_areEmptyOnceTheSubjectHasEnded() {
    let subject = ReplaySubject<Int, TestError>(bufferSize: 2)
    let recorder = RecordingSubscriber<Int, TestError>()
    subject.subscribe(recorder)
    subject.send(1)
    #expect(subject.subscriptions.count == 1)
    subject.send(completion: .finished)
    #expect(subject.subscriptions.isEmpty)
    let late = RecordingSubscriber<Int, TestError>()
    subject.subscribe(late)
    #expect(late.events == [.subscription, .value(1), .completion(.finished)])
    #expect(subject.subscriptions.isEmpty)
  }
}
