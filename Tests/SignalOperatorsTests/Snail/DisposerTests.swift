import Dispatch
import SignalOperators
import StreamCore
import StreamTesting
import Synchronization
import Testing

@Suite struct DisposerTests {
  @Test func disposeAll_endsEveryEntryOnceInOrder() {
    let log = EventLog()
    let disposer = Disposer()
    CountingCancellable(name: "a", log: log).add(to: disposer)
    disposer.add(disposable: CountingDisposable(name: "b", log: log))
    CountingDisposable(name: "c", log: log).add(to: disposer)
    disposer.disposeAll()
    disposer.disposeAll()
    #expect(log.entries == ["a", "b", "c"])
  }

  @Test func releasedDisposer_endsWhatItHolds() {
    let log = EventLog()
    do {
      let disposer = Disposer()
      CountingCancellable(name: "a", log: log).add(to: disposer)
      CountingDisposable(name: "b", log: log).add(to: disposer)
      #expect(log.entries.isEmpty)
    }
    #expect(log.entries == ["a", "b"])
  }

  @Test func addAfterDisposeAll_isKeptUntilTheNextDisposeAll() {
    let log = EventLog()
    let disposer = Disposer()
    CountingCancellable(name: "a", log: log).add(to: disposer)
    disposer.disposeAll()
    CountingCancellable(name: "b", log: log).add(to: disposer)
    #expect(log.entries == ["a"])
    disposer.disposeAll()
    #expect(log.entries == ["a", "b"])
  }

  @Test func addFromInsideDispose_isKeptForLater() {
    let log = EventLog()
    let disposer = Disposer()
    let reAdder = ClosureDisposable {
      log.append("outer")
      CountingCancellable(name: "inner", log: log).add(to: disposer)
    }
    disposer.add(disposable: reAdder)
    disposer.disposeAll()
    #expect(log.entries == ["outer"])
    disposer.disposeAll()
    #expect(log.entries == ["outer", "inner"])
  }

  @Test func sinkAddedToDisposer_stopsOnDisposeAll() {
    let subject = ReplaySubject<Int, Never>(bufferSize: 1)
    let received = Mutex<[Int]>([])
    let disposer = Disposer()
    subject.sink { value in received.withLock { $0.append(value) } }.add(to: disposer)
    subject.send(1)
    disposer.disposeAll()
    subject.send(2)
    #expect(received.withLock { $0 } == [1])
  }

  @Test func disposableAdd_returnsTheSameObject() {
    let disposer = Disposer()
    let disposable = CountingDisposable(name: "a", log: EventLog())
    #expect(disposable.add(to: disposer) === disposable)
  }

  @Test func concurrentAddsAndDisposeAll_endEachEntryExactlyOnce() {
    let count = 4_000
    let entries = (0..<count).map { _ in CountingCancellable(name: nil, log: nil) }
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

@Suite struct ClosureTests {
  @Test func dispose_releasesTheClosure() {
    weak var weakCaptured: EventLog?
    let holder: Closure<@Sendable () -> Void>
    do {
      let captured = EventLog()
      weakCaptured = captured
      holder = Closure { @Sendable in captured.append("called") }
    }
    holder.closure?()
    #expect(weakCaptured?.entries == ["called"])
    holder.dispose()
    #expect(holder.closure == nil)
    #expect(weakCaptured == nil)
  }

  @Test func addToDisposer_returnsHolderThatDisposeAllEmpties() {
    let disposer = Disposer()
    let holder = Closure { @Sendable (value: Int) in value * 2 }.add(to: disposer)
    #expect(holder.closure?(2) == 4)
    disposer.disposeAll()
    #expect(holder.closure == nil)
  }
}

@Suite struct ObservableCollectionTests {
  @Test func releaseAll_cancelsEverySubscriptionOnce() {
    let log = EventLog()
    let collection = ObservableCollection()
    CountingCancellable(name: "a", log: log).append(to: collection)
    collection.append(CountingCancellable(name: "b", log: log))
    collection.releaseAll()
    collection.releaseAll()
    #expect(log.entries == ["a", "b"])
  }

  @Test func releasedCollection_cancelsWhatItHolds() {
    let subject = ReplaySubject<Int, Never>(bufferSize: 0)
    let received = Mutex<[Int]>([])
    do {
      let collection = ObservableCollection()
      subject.sink { value in received.withLock { $0.append(value) } }.append(to: collection)
      subject.send(1)
    }
    subject.send(2)
    #expect(received.withLock { $0 } == [1])
  }

  @Test func appendAfterReleaseAll_isKept() {
    let log = EventLog()
    let collection = ObservableCollection()
    collection.releaseAll()
    CountingCancellable(name: "a", log: log).append(to: collection)
    #expect(log.entries.isEmpty)
    collection.releaseAll()
    #expect(log.entries == ["a"])
  }
}

// Sendable: `lines` is guarded by its mutex.
private final class EventLog: Sendable {
  private let lines = Mutex<[String]>([])
  var entries: [String] { lines.withLock { $0 } }
  func append(_ line: String) { lines.withLock { $0.append(line) } }
}

/// Counts raw `cancel()` calls, without making them idempotent.
private final class CountingCancellable: Cancellable {
  let name: String?
  let log: EventLog?
  private let count = Atomic(0)

  init(name: String?, log: EventLog?) {
    self.name = name
    self.log = log
  }

  var cancels: Int { count.load(ordering: .sequentiallyConsistent) }

  func cancel() {
    count.add(1, ordering: .sequentiallyConsistent)
    if let name { log?.append(name) }
  }
}

private final class CountingDisposable: Disposable {
  let name: String
  let log: EventLog

  init(name: String, log: EventLog) {
    self.name = name
    self.log = log
  }

  func dispose() { log.append(name) }
}

private final class ClosureDisposable: Disposable {
  let body: @Sendable () -> Void
  init(_ body: @escaping @Sendable () -> Void) { self.body = body }
  func dispose() { body() }
}
