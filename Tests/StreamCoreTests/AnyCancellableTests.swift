import Foundation
import StreamCore
import Testing

@Suite(.timeLimit(.minutes(5))) struct AnyCancellableTests {
  @Test func closureInit_cancelRunsTheClosure() {
    let counter = Counter()
    let token = AnyCancellable { counter.increment() }
    #expect(counter.value == 0)
    token.cancel()
    #expect(counter.value == 1)
  }

  @Test func cancellableInit_cancelCancelsTheWrapped() {
    let subscription = SpySubscription()
    let token = AnyCancellable(subscription)
    #expect(subscription.cancels == 0)
    token.cancel()
    #expect(subscription.cancels == 1)
  }

  @Test func cancelTwice_runsTheClosureOnce() {
    let counter = Counter()
    let token = AnyCancellable { counter.increment() }
    token.cancel()
    token.cancel()
    #expect(counter.value == 1)
  }

  @Test func cancelTwice_cancelsTheWrappedOnce() {
    let subscription = SpySubscription()
    let token = AnyCancellable(subscription)
    token.cancel()
    token.cancel()
    #expect(subscription.cancels == 1)
  }

  @Test func cancelFromManyThreadsAtOnce_runsOnce() {
    for _ in 0..<100 {
      let counter = Counter()
      let token = AnyCancellable { counter.increment() }
      DispatchQueue.concurrentPerform(iterations: 16) { _ in
        token.cancel()
      }
      #expect(counter.value == 1)
    }
  }

  @Test func cancelFromManyThreadsAtOnce_cancelsTheWrappedOnce() {
    for _ in 0..<100 {
      let subscription = SpySubscription()
      let token = AnyCancellable(subscription)
      DispatchQueue.concurrentPerform(iterations: 16) { _ in
        token.cancel()
      }
      #expect(subscription.cancels == 1)
    }
  }

  @Test func deinit_runsTheClosure() {
    let counter = Counter()
    do {
      let token = AnyCancellable { counter.increment() }
      withExtendedLifetime(token) {
        #expect(counter.value == 0)
      }
    }
    #expect(counter.value == 1)
  }

  @Test func deinit_cancelsTheWrapped() {
    let subscription = SpySubscription()
    do {
      let token = AnyCancellable(subscription)
      withExtendedLifetime(token) {}
    }
    #expect(subscription.cancels == 1)
  }

  @Test func deinitAfterCancel_doesNotRunAgain() {
    let counter = Counter()
    do {
      let token = AnyCancellable { counter.increment() }
      token.cancel()
    }
    #expect(counter.value == 1)
  }

  @Test func cancel_releasesTheWrapped() {
    weak var weakSubscription: SpySubscription?
    let token: AnyCancellable
    do {
      let subscription = SpySubscription()
      weakSubscription = subscription
      token = AnyCancellable(subscription)
    }
    #expect(weakSubscription != nil)
    token.cancel()
    #expect(weakSubscription == nil)
  }

  @Test func wrappingAnotherAnyCancellable_cancelsItOnce() {
    let counter = Counter()
    let inner = AnyCancellable { counter.increment() }
    let outer = AnyCancellable(inner)
    outer.cancel()
    inner.cancel()
    #expect(counter.value == 1)
  }

  // MARK: store(in:)

  @Test func storeInSet_insertsOnce() {
    var set = Set<AnyCancellable>()
    let token = AnyCancellable {}
    token.store(in: &set)
    token.store(in: &set)
    #expect(set.count == 1)
    #expect(set.contains(token))
  }

  @Test func storeInSet_keepsTheTokenAliveUntilRemoved() {
    let counter = Counter()
    var set = Set<AnyCancellable>()
    AnyCancellable { counter.increment() }.store(in: &set)
    #expect(counter.value == 0)
    set.removeAll()
    #expect(counter.value == 1)
  }

  @Test func storeInArray_appends() {
    var array: [AnyCancellable] = []
    let first = AnyCancellable {}
    let second = AnyCancellable {}
    first.store(in: &array)
    second.store(in: &array)
    first.store(in: &array)
    #expect(array == [first, second, first])
  }

  @Test func storeInArray_keepsTheTokenAliveUntilRemoved() {
    let counter = Counter()
    var array: [AnyCancellable] = []
    AnyCancellable { counter.increment() }.store(in: &array)
    #expect(counter.value == 0)
    array.removeAll()
    #expect(counter.value == 1)
  }

  @Test func cancellableStoreInSet_wrapsAndCancelsOnRemoval() {
    let subscription = SpySubscription()
    var set = Set<AnyCancellable>()
    subscription.store(in: &set)
    #expect(set.count == 1)
    #expect(subscription.cancels == 0)
    set.removeAll()
    #expect(subscription.cancels == 1)
  }

  @Test func cancellableStoreInArray_wrapsAndCancelsOnRemoval() {
    let subscription = SpySubscription()
    var array: [AnyCancellable] = []
    subscription.store(in: &array)
    #expect(array.count == 1)
    array.first?.cancel()
    #expect(subscription.cancels == 1)
  }

  @Test func structCancellable_cancelledOnceAndByDeinit() {
    let counter = Counter()
    let cancelled = AnyCancellable(CountingCancellable(counter: counter))
    cancelled.cancel()
    cancelled.cancel()
    #expect(counter.value == 1)
    do {
      let dropped = AnyCancellable(CountingCancellable(counter: counter))
      #expect(counter.value == 1)
      withExtendedLifetime(dropped) {}
    }
    #expect(counter.value == 2)
  }

  @Test func cancelFromInsideTheAction_runsItOnce() {
    let counter = Counter()
    final class Box: @unchecked Sendable { var token: AnyCancellable? }
    let box = Box()
    box.token = AnyCancellable {
      counter.increment()
      box.token?.cancel()
    }
    box.token?.cancel()
    #expect(counter.value == 1)
    box.token = nil
    #expect(counter.value == 1)
  }

  // MARK: Hashable

  @Test func equality_isIdentity() {
    let action: @Sendable () -> Void = {}
    let first = AnyCancellable(action)
    let second = AnyCancellable(action)
    #expect(first == first)
    #expect(first != second)
    #expect(Set([first, second, first]).count == 2)
  }

  @Test func hash_isStableForTheSameObject() {
    let token = AnyCancellable {}
    var hasher = Hasher()
    hasher.combine(ObjectIdentifier(token))
    #expect(token.hashValue == token.hashValue)
    #expect(token.hashValue == hasher.finalize())
  }
}

// MARK: - Helpers

/// A cancellable value type, which the token keeps by value.
private struct CountingCancellable: Cancellable {
  let counter: Counter

  func cancel() { counter.increment() }
}

/// A thread-safe count of calls.
// Sendable: `_value` is guarded by `lock`.
private final class Counter: @unchecked Sendable {
  private let lock = Lock()
  private var _value = 0

  var value: Int { lock.withLock { _value } }

  func increment() { lock.withLock { _value += 1 } }
}
