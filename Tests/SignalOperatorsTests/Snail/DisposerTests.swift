import Dispatch
import SignalOperators
import StreamCombineExt
import StreamCore
import StreamSnail
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct DisposerTests {
  @Test func disposeAll_endsEveryEntryOnceInOrder() {
    let log = SnailDisposeLog()
    let disposer = Disposer()
    SnailCountingCancellable(name: "a", log: log).add(to: disposer)
    disposer.add(disposable: SnailCountingDisposable(name: "b", log: log))
    SnailCountingDisposable(name: "c", log: log).add(to: disposer)
    disposer.disposeAll()
    disposer.disposeAll()
    #expect(log.entries == ["a", "b", "c"])
  }

  @Test func releasedDisposer_endsWhatItHolds() {
    let log = SnailDisposeLog()
    do {
      let disposer = Disposer()
      SnailCountingCancellable(name: "a", log: log).add(to: disposer)
      SnailCountingDisposable(name: "b", log: log).add(to: disposer)
      #expect(log.entries.isEmpty)
    }
    #expect(log.entries == ["a", "b"])
  }

  @Test func addAfterDisposeAll_isKeptUntilTheNextDisposeAll() {
    let log = SnailDisposeLog()
    let disposer = Disposer()
    SnailCountingCancellable(name: "a", log: log).add(to: disposer)
    disposer.disposeAll()
    SnailCountingCancellable(name: "b", log: log).add(to: disposer)
    #expect(log.entries == ["a"])
    disposer.disposeAll()
    #expect(log.entries == ["a", "b"])
  }

  @Test func addFromInsideDispose_isKeptForLater() {
    let log = SnailDisposeLog()
    let disposer = Disposer()
    let reAdder = SnailClosureDisposable {
      log.append("outer")
      SnailCountingCancellable(name: "inner", log: log).add(to: disposer)
    }
    disposer.add(disposable: reAdder)
    disposer.disposeAll()
    #expect(log.entries == ["outer"])
    disposer.disposeAll()
    #expect(log.entries == ["outer", "inner"])
  }

  @Test func sinkAddedToDisposer_stopsOnDisposeAll() {
    let subject = ReplaySubject<Int, Never>(bufferSize: 1)
    let received = LockedState<[Int]>([])
    let disposer = Disposer()
    subject.sink { value in received.withLock { $0.append(value) } }.add(to: disposer)
    subject.send(1)
    disposer.disposeAll()
    subject.send(2)
    #expect(received.withLock { $0 } == [1])
  }

  @Test func disposableAdd_returnsTheSameObject() {
    let disposer = Disposer()
    let disposable = SnailCountingDisposable(name: "a", log: SnailDisposeLog())
    #expect(disposable.add(to: disposer) === disposable)
  }

  @Test func concurrentAddsAndDisposeAll_endEachEntryExactlyOnce() {
    let count = 4_000
    let entries = (0..<count).map { _ in SnailCountingCancellable(name: nil, log: nil) }
    do {
      let disposer = Disposer()
      DispatchQueue.concurrentPerform(iterations: 6) { index in
        if index < 4 {
          for entry in stride(from: index, to: count, by: 4) { entries[entry].add(to: disposer) }
        } else {
          for _ in 0..<200 { disposer.disposeAll() }
        }
      }
    }
    #expect(entries.allSatisfy { $0.cancels == 1 })
  }
}
