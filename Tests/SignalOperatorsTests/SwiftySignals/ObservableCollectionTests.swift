import SignalOperators
import StreamCombineExt
import StreamCore
import StreamSwiftySignals
import Testing

@Suite(.timeLimit(.minutes(5))) struct ObservableCollectionTests {
  @Test func releaseAll_cancelsEverySubscriptionOnce() {
    let log = SnailDisposeLog()
    let collection = ObservableCollection()
    SnailCountingCancellable(name: "a", log: log).append(to: collection)
    collection.append(SnailCountingCancellable(name: "b", log: log))
    collection.releaseAll()
    collection.releaseAll()
    #expect(log.entries == ["a", "b"])
  }

  @Test func releasedCollection_cancelsWhatItHolds() {
    let subject = ReplaySubject<Int, Never>(bufferSize: 0)
    let received = LockedState<[Int]>([])
    do {
      let collection = ObservableCollection()
      subject.sink { value in received.withLock { $0.append(value) } }.append(to: collection)
      subject.send(1)
    }
    subject.send(2)
    #expect(received.withLock { $0 } == [1])
  }

  @Test func appendAfterReleaseAll_isKept() {
    let log = SnailDisposeLog()
    let collection = ObservableCollection()
    collection.releaseAll()
    SnailCountingCancellable(name: "a", log: log).append(to: collection)
    #expect(log.entries.isEmpty)
    collection.releaseAll()
    #expect(log.entries == ["a"])
  }
}
