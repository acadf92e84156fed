import Dispatch
import PropertyWrappers
import StreamCombineExt
import StreamCore
import StreamPropagate
import StreamShuttle
import StreamSnail
import Testing

@Suite(.timeLimit(.minutes(5))) struct SubscribingTests {
  /// A `Subscribing` object that records each delivery and whether it came on the main queue.
  private final class Screen: Subscribing {
    struct Delivery: Equatable {
      var value: Int
      var onMain: Bool
    }

    var cancellables = Set<AnyCancellable>()
    let prefersMainThreadExecution: Bool
    let log = LockedState<[Delivery]>([])
    let refreshes = LockedState(0)

    init(prefersMain: Bool) {
      prefersMainThreadExecution = prefersMain
    }

    var values: [Int] { log.withLock { $0.map(\.value) } }
    var deliveries: [Delivery] { log.withLock { $0 } }

    func record(_ value: Int) {
      log.withLock { $0.append(Delivery(value: value, onMain: MainQueueProbe.isCurrent)) }
    }

    func refresh() {
      refreshes.withLock { $0 += 1 }
    }
  }

  private final class Sentinel {}

  // MARK: Sender thread

  @Test func senderThread_eventDeliversInsideSend() {
    let screen = Screen(prefersMain: false)
    let event = ObservableEvent<Int>()
    screen.subscribeOnSenderThread(to: event) { [weak screen] in screen?.record($0) }
    event.send(1)
    #expect(screen.values == [1])
    event.send(2)
    #expect(screen.values == [1, 2])
  }

  @Test func senderThread_eventDeliversNothingUntilSent() {
    let screen = Screen(prefersMain: false)
    let event = ObservableEvent<Int>()
    event.send(0)
    screen.subscribeOnSenderThread(to: event) { [weak screen] in screen?.record($0) }
    #expect(screen.values.isEmpty)
  }

  @Test func senderThread_streamDeliversItsCurrentValueAtOnce() {
    let screen = Screen(prefersMain: false)
    let stream = ObservableStream<Int>(5)
    screen.subscribeOnSenderThread(to: stream) { [weak screen] in screen?.record($0) }
    #expect(screen.values == [5])
    stream.value = 6
    #expect(screen.values == [5, 6])
  }

  @Test func senderThread_runsOnTheSendingThread() {
    let screen = Screen(prefersMain: false)
    let event = ObservableEvent<Int>()
    let queue = DispatchQueue(label: "sender")
    let key = DispatchSpecificKey<Bool>()
    queue.setSpecific(key: key, value: true)
    let onSender = LockedState<[Bool]>([])
    screen.subscribeOnSenderThread(to: event) { _ in
      onSender.withLock { $0.append(DispatchQueue.getSpecific(key: key) ?? false) }
    }
    queue.sync { event.send(1) }
    #expect(onSender.withLock { $0 } == [true])
  }

  @Test func senderThread_sendFromInsideTheActionIsDeliveredReentrantly() {
    let screen = Screen(prefersMain: false)
    let event = ObservableEvent<Int>()
    var trace: [String] = []
    screen.subscribeOnSenderThread(to: event) { value in
      trace.append("begin \(value)")
      if value == 1 { event.send(2) }
      trace.append("end \(value)")
    }
    event.send(1)
    #expect(trace == ["begin 1", "begin 2", "end 2", "end 1"])
  }

  @Test func subscribe_notPreferringMain_deliversSynchronouslyOnTheSender() {
    let screen = Screen(prefersMain: false)
    let event = ObservableEvent<Int>()
    let stream = ObservableStream<Int>(10)
    screen.subscribe(to: event) { [weak screen] in screen?.record($0) }
    screen.subscribe(to: stream) { [weak screen] in screen?.record($0) }
    #expect(screen.values == [10])
    DispatchQueue.global().sync { event.send(1) }
    #expect(screen.deliveries == [.init(value: 10, onMain: false), .init(value: 1, onMain: false)])
  }

  // MARK: Main queue

  @Test func subscribe_preferringMain_deliversOnTheMainQueue() async {
    let screen = Screen(prefersMain: true)
    let event = ObservableEvent<Int>()
    let delivered = AsyncSignal()
    screen.subscribe(to: event) { [weak screen] value in
      screen?.record(value)
      delivered.signal()
    }
    DispatchQueue.global().async { event.send(1) }
    #expect(await delivered.wait())
    #expect(screen.deliveries == [.init(value: 1, onMain: true)])
  }

  @Test func subscribeOnMain_keepsTheOrderOfValuesSentFromAnotherThread() async {
    let screen = Screen(prefersMain: false)
    let event = ObservableEvent<Int>()
    let last = AsyncSignal()
    screen.subscribeOnMain(to: event) { [weak screen] value in
      screen?.record(value)
      if value == 200 { last.signal() }
    }
    DispatchQueue.global().async {
      for value in 1...200 { event.send(value) }
    }
    #expect(await last.wait())
    #expect(screen.values == Array(1...200))
    let allOnMain = screen.deliveries.allSatisfy(\.onMain)
    #expect(allOnMain)
  }

  @MainActor @Test func subscribeOnMain_hopsEvenWhenSentOnMain() async {
    let screen = Screen(prefersMain: false)
    let event = ObservableEvent<Int>()
    screen.subscribeOnMain(to: event) { [weak screen] in screen?.record($0) }
    #expect(MainQueueProbe.isCurrent)
    event.send(1)
    event.send(2)
    #expect(screen.values.isEmpty)
    await MainQueueProbe.drain()
    #expect(screen.deliveries == [.init(value: 1, onMain: true), .init(value: 2, onMain: true)])
  }

  @MainActor @Test func subscribeOnMain_eventDeliversNothingUntilSent() async {
    let screen = Screen(prefersMain: true)
    let event = ObservableEvent<Int>()
    event.send(0)
    screen.subscribe(to: event) { [weak screen] in screen?.record($0) }
    await MainQueueProbe.drain()
    #expect(screen.values.isEmpty)
  }

  @MainActor @Test func subscribeOnMain_streamDeliversItsCurrentValueOneTurnLater() async {
    let screen = Screen(prefersMain: true)
    let stream = ObservableStream<Int>(7)
    screen.subscribe(to: stream) { [weak screen] in screen?.record($0) }
    #expect(screen.values.isEmpty)
    await MainQueueProbe.drain()
    #expect(screen.deliveries == [.init(value: 7, onMain: true)])
    stream.value = 8
    await MainQueueProbe.drain()
    #expect(screen.values == [7, 8])
  }

  @MainActor @Test func subscribeOnMain_cancelDropsValuesStillOnTheirWay() async {
    let screen = Screen(prefersMain: true)
    let event = ObservableEvent<Int>()
    screen.subscribe(to: event) { [weak screen] in screen?.record($0) }
    event.send(1)
    screen.cancellables.removeAll()
    event.send(2)
    await MainQueueProbe.drain()
    #expect(screen.values.isEmpty)
  }

  @MainActor @Test func subscribeOnMain_completionComesAfterTheValuesAndReleasesTheAction() async {
    let screen = Screen(prefersMain: true)
    let event = ObservableEvent<Int>()
    weak var weakSentinel: Sentinel?
    do {
      let sentinel = Sentinel()
      weakSentinel = sentinel
      screen.subscribe(to: event) { [weak screen] value in
        withExtendedLifetime(sentinel) { screen?.record(value) }
      }
    }
    event.send(1)
    event.send(completion: .finished)
    #expect(weakSentinel != nil)
    await MainQueueProbe.drain()
    #expect(screen.values == [1])
    #expect(weakSentinel == nil)
  }

  // MARK: Ownership

  @Test(arguments: [false, true])
  func weakCapture_objectDeinitsAndItsSubscriptionsEnd(prefersMain: Bool) async {
    let event = ObservableEvent<Int>()
    let stream = ObservableStream<Int>(0)
    weak var weakScreen: Screen?
    weak var weakSentinel: Sentinel?
    do {
      let screen = Screen(prefersMain: prefersMain)
      let sentinel = Sentinel()
      weakScreen = screen
      weakSentinel = sentinel
      screen.subscribe(to: event) { [weak screen] value in
        withExtendedLifetime(sentinel) { screen?.record(value) }
      }
      screen.subscribe(to: stream) { [weak screen] value in
        withExtendedLifetime(sentinel) { screen?.record(value) }
      }
      screen.subscribe(to: event, calling: Screen.record)
      event.send(1)
      #expect(screen.cancellables.count == 3)
      // Let main-queue deliveries finish: while one runs, it holds `screen` strongly.
      await MainQueueProbe.drain()
      #expect(screen.values == [0, 1, 1])
    }
    #expect(weakScreen == nil)
    // The closures are gone, so the subjects no longer hold the subscriptions.
    #expect(weakSentinel == nil)
    event.send(2)
    stream.send(2)
    await MainQueueProbe.drain()
  }

  @Test func strongCapture_keepsTheObjectUntilItsCancellablesAreCleared() {
    let event = ObservableEvent<Int>()
    let refresh = AnonymousEvent()
    weak var weakScreen: Screen?
    do {
      let screen = Screen(prefersMain: false)
      weakScreen = screen
      screen.subscribe(to: event) { screen.record($0) }
      // Shuttle's README style: a method reference captures `screen` strongly too.
      screen.subscribe(to: refresh, performing: screen.refresh)
    }
    event.send(1)
    refresh.send()
    #expect(weakScreen?.values == [1])
    #expect(weakScreen?.refreshes.withLock { $0 } == 1)
    if let screen = weakScreen {
      screen.cancellables.removeAll()
    }
    #expect(weakScreen == nil)
  }

  @Test func clearingCancellables_endsEverySubscription() {
    let screen = Screen(prefersMain: false)
    let event = ObservableEvent<Int>()
    let stream = ObservableStream<Int>(0)
    screen.subscribe(to: event) { [weak screen] in screen?.record($0) }
    screen.subscribe(to: stream) { [weak screen] in screen?.record($0) }
    screen.cancellables.removeAll()
    event.send(1)
    stream.send(1)
    #expect(screen.values == [0])
  }

  @Test func calling_callsTheMethodWhileTheObjectLives() {
    let screen = Screen(prefersMain: false)
    let event = ObservableEvent<Int>()
    let stream = ObservableStream<Int>(3)
    let refresh = AnonymousEvent()
    screen.subscribe(to: event, calling: Screen.record)
    screen.subscribe(to: stream, calling: Screen.record)
    screen.subscribe(to: refresh, calling: Screen.refresh)
    event.send(4)
    refresh.send()
    refresh.send()
    #expect(screen.values == [3, 4])
    #expect(screen.refreshes.withLock { $0 } == 2)
  }

  @Test func calling_holdsTheObjectWeakly() {
    let event = ObservableEvent<Int>()
    let refresh = AnonymousEvent()
    weak var weakScreen: Screen?
    do {
      let screen = Screen(prefersMain: false)
      weakScreen = screen
      screen.subscribe(to: event, calling: Screen.record)
      screen.subscribe(to: refresh, calling: Screen.refresh)
    }
    #expect(weakScreen == nil)
    event.send(1)
    refresh.send()
  }

  @MainActor @Test func mainActorClass_conformsOnTheMainActor() async {
    let view = MainActorView()
    let stream = ObservableStream<String>("first")
    view.bind(to: stream)
    await MainQueueProbe.drain()
    #expect(view.text == "first")
    await Task.detached { stream.value = "second" }.value
    await MainQueueProbe.drain()
    #expect(view.text == "second")
  }
}

extension SubscribingTests {
  /// A value type conforming, as Shuttle allowed; its `subscribe` methods are unavailable (a
  /// compile error that says they need a class), so it can only use its requirements.
  private struct Settings: Subscribing {
    var cancellables = Set<AnyCancellable>()
    let prefersMainThreadExecution = false
  }

  @Test func valueType_mayConformAsInShuttle() {
    func requirements(of subscriber: some Subscribing) -> (Int, Bool) {
      (subscriber.cancellables.count, subscriber.prefersMainThreadExecution)
    }
    var settings = Settings()
    let event = ObservableEvent<Int>()
    event.sink { _ in }.store(in: &settings.cancellables)
    #expect(requirements(of: settings) == (1, false))
  }
}

/// A main-actor class, as a UIKit view would be, conforming on the main actor.
@MainActor private final class MainActorView {
  var cancellables = Set<AnyCancellable>()
  nonisolated let prefersMainThreadExecution = true
  var text = ""

  func bind(to stream: ObservableStream<String>) {
    subscribe(to: stream) { [weak self] text in
      MainActor.assumeIsolated { self?.text = text }
    }
  }
}

extension MainActorView: @MainActor Subscribing {}

// MARK: - Helpers shared with ThreadingTests

/// Tells whether code runs on the main queue without trapping, and waits for the main queue.
///
/// Swift Testing runs non-isolated tests on the cooperative pool, off the main thread, and
/// `swift test` services the main queue all along (its async `main` drains it), on Linux too:
/// `@MainActor` tests run there, and blocks scheduled with `DispatchQueue.main.async` run
/// whenever the main actor is free.
enum MainQueueProbe {
  private static let key = DispatchSpecificKey<Bool>()
  private static let marked: Void = DispatchQueue.main.setSpecific(key: key, value: true)

  /// Whether the caller runs on the main queue.
  static var isCurrent: Bool {
    _ = marked
    return DispatchQueue.getSpecific(key: key) ?? false
  }

  /// Returns once the main queue has run every block scheduled on it before this call.
  static func drain() async {
    _ = marked
    await withCheckedContinuation { continuation in
      DispatchQueue.main.async { continuation.resume() }
    }
  }
}

/// A counting signal that a test awaits with a deadline, without blocking a thread.
///
/// Tests wait with this rather than a `DispatchSemaphore`: a semaphore blocks one of the few
/// cooperative threads (two on a two-core machine), and libdispatch on Linux then takes about a
/// second to notice and add a worker thread for the work being waited for.
final class AsyncSignal: Sendable {
  private struct Waiter {
    let id: UInt64
    let continuation: CheckedContinuation<Bool, Never>
  }

  private struct State {
    var count = 0
    var waiters: [Waiter] = []
    var nextID: UInt64 = 0
  }

  private let state = LockedState(State())

  /// Wakes the longest-waiting `wait`, or lets the next one return at once.
  func signal() {
    let waiter = state.withLock { state -> Waiter? in
      guard !state.waiters.isEmpty else {
        state.count += 1
        return nil
      }
      return state.waiters.removeFirst()
    }
    waiter?.continuation.resume(returning: true)
  }

  /// Returns `true` once a `signal()` is available for this call, or `false` after `timeout`.
  func wait(timeout: DispatchTimeInterval = .seconds(60)) async -> Bool {
    await withCheckedContinuation { continuation in
      let id = state.withLock { state -> UInt64? in
        if state.count > 0 {
          state.count -= 1
          return nil
        }
        let id = state.nextID
        state.nextID += 1
        state.waiters.append(Waiter(id: id, continuation: continuation))
        return id
      }
      guard let id else {
        continuation.resume(returning: true)
        return
      }
      DispatchQueue.global().asyncAfter(deadline: .now() + timeout) { [state] in
        let expired = state.withLock { state -> Waiter? in
          guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
          return state.waiters.remove(at: index)
        }
        expired?.continuation.resume(returning: false)
      }
    }
  }
}
