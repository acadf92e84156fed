// Code shaped like third-party Combine libraries written for the Swift 6 language mode, with only
// the import changed from `Combine` (issue 15, "Source compatibility in Swift 6 mode"). This
// target exists to compile: each declaration below is one a library declares against Combine, and
// a change to StreamKit that makes one of them fail to build breaks the build. The tests then
// check that the code also behaves.

import Dispatch
import SignalOperators
import StreamCore
import Synchronization
import Testing

// MARK: - A non-final subscription class with mutable state, and a subclass

/// The base class a library keeps for its subscriptions: mutable, unsynchronised state.
class DemandTrackingSubscription<Downstream: Subscriber>: Subscription {
  var downstream: Downstream?
  var outstanding: Subscribers.Demand = .none
  var cancelCount = 0

  init(downstream: Downstream) {
    self.downstream = downstream
  }

  func request(_ demand: Subscribers.Demand) {
    outstanding += demand
    drain()
  }

  func cancel() {
    cancelCount += 1
    downstream = nil
  }

  /// Subclasses deliver what `outstanding` allows.
  func drain() {}
}

/// A subclass that counts down, one value per unit of demand.
final class CountdownSubscription<Downstream: Subscriber>: DemandTrackingSubscription<Downstream>
where Downstream.Input == Int, Downstream.Failure == Never {
  var next: Int

  init(from start: Int, downstream: Downstream) {
    next = start
    super.init(downstream: downstream)
  }

  override func drain() {
    while outstanding > 0, next >= 0, let downstream {
      outstanding -= 1
      let value = next
      next -= 1
      outstanding += downstream.receive(value)
    }
    if next < 0, let downstream {
      self.downstream = nil
      downstream.receive(completion: .finished)
    }
  }
}

/// A custom publisher whose subscription is the class above.
struct Countdown: Publisher {
  typealias Output = Int
  typealias Failure = Never

  let start: Int

  func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == Never {
    subscriber.receive(subscription: CountdownSubscription(from: start, downstream: subscriber))
  }
}

// MARK: - A subscriber class with mutable state

/// A subscriber that asks for one value at a time and keeps what it saw.
class OneAtATimeSubscriber<Input, Failure: Error>: Subscriber {
  var received: [Input] = []
  var completion: Subscribers.Completion<Failure>?
  var subscription: (any Subscription)?

  func receive(subscription: any Subscription) {
    self.subscription = subscription
    subscription.request(.max(1))
  }

  func receive(_ input: Input) -> Subscribers.Demand {
    received.append(input)
    return .max(1)
  }

  func receive(completion: Subscribers.Completion<Failure>) {
    self.completion = completion
    subscription = nil
  }
}

// MARK: - A cancellable struct holding a non-Sendable closure

/// A cancellable value type whose action is an ordinary closure.
struct ActionCancellable: Cancellable {
  let action: () -> Void

  func cancel() { action() }
}

/// A reference type the closure above mutates (not `Sendable`).
final class Counter {
  var value = 0
}

/// A counter a scheduler's `@Sendable` action may capture.
final class SharedCounter: Sendable {
  private let count = Mutex(0)
  var value: Int { count.withLock { $0 } }
  func increment() { count.withLock { $0 += 1 } }
}

// MARK: - A custom scheduler with mutable state

/// A manual virtual-time scheduler, as combine-schedulers-style libraries declare one: a class
/// with mutable state, advanced by hand.
// The one line a port adds: StreamKit's `Scheduler` refines `Sendable`.
class ManualClock: Scheduler {
  typealias SchedulerTimeType = DispatchQueue.SchedulerTimeType
  typealias SchedulerOptions = Never

  var now: SchedulerTimeType
  var minimumTolerance: SchedulerTimeType.Stride { .zero }
  private var pending: [(id: Int, at: SchedulerTimeType, action: () -> Void)] = []
  private var lastID = 0

  init() {
    now = SchedulerTimeType(DispatchTime(uptimeNanoseconds: 1))
  }

  func schedule(options: Never?, _ action: @escaping () -> Void) {
    enqueue(at: now, action)
  }

  func schedule(
    after date: SchedulerTimeType,
    tolerance: SchedulerTimeType.Stride,
    options: Never?,
    _ action: @escaping () -> Void
  ) {
    enqueue(at: date, action)
  }

  func schedule(
    after date: SchedulerTimeType,
    interval: SchedulerTimeType.Stride,
    tolerance: SchedulerTimeType.Stride,
    options: Never?,
    _ action: @escaping () -> Void
  ) -> any Cancellable {
    var stopped = false
    func tick(at time: SchedulerTimeType) {
      enqueue(at: time) {
        guard !stopped else { return }
        action()
        tick(at: time.advanced(by: interval))
      }
    }
    tick(at: date)
    return ActionCancellable { stopped = true }
  }

  /// Runs everything due by `now + stride`, in time order.
  func advance(by stride: SchedulerTimeType.Stride) {
    let end = now.advanced(by: stride)
    while let index = pending.indices.filter({ pending[$0].at <= end })
      .min(by: { (pending[$0].at, pending[$0].id) < (pending[$1].at, pending[$1].id) })
    {
      let entry = pending.remove(at: index)
      now = max(now, entry.at)
      entry.action()
    }
    now = end
  }

  private func enqueue(at time: SchedulerTimeType, _ action: @escaping () -> Void) {
    lastID += 1
    pending.append((lastID, time, action))
  }
}

// MARK: - App code: a main-actor model, subjects handed to tasks

/// A view model that keeps its subscriptions in a set.
@MainActor
final class SearchModel {
  var query = ""
  var results: [String] = []
  var cancellables = Set<AnyCancellable>()
  var extra: [any Cancellable] = []
  let queries = PassthroughSubject<String, Never>()
  let count = CurrentValueSubject<Int, Never>(0)

  func bind() {
    queries
      .map { $0.uppercased() }
      .sink { [weak self] in
        self?.query = $0
        self?.results.append($0)
      }
      .store(in: &cancellables)
    count.sink { _ in }.store(in: &cancellables)
    let counter = Counter()
    ActionCancellable { counter.value += 1 }.store(in: &cancellables)
    extra.append(ActionCancellable { counter.value += 1 })
  }
}

// MARK: - Tests

@Suite(.timeLimit(.minutes(5)))
struct ThirdPartyShapesTests {
  @Test func aCustomPublisherWithASubclassedSubscriptionDeliversOnDemand() {
    let subscriber = OneAtATimeSubscriber<Int, Never>()
    Countdown(start: 3).subscribe(subscriber)
    #expect(subscriber.received == [3, 2, 1, 0])
    #expect(subscriber.completion == .finished)
  }

  @Test func theCountdownWorksThroughOperatorsAndSink() {
    var seen: [Int] = []
    let token = Countdown(start: 4).filter { $0.isMultiple(of: 2) }.sink { seen.append($0) }
    #expect(seen == [4, 2, 0])
    token.cancel()
  }

  @Test func cancellingTheSubclassedSubscriptionReachesTheBaseClass() {
    let subscriber = OneAtATimeSubscriber<Int, Never>()
    let subscription = CountdownSubscription(from: 5, downstream: subscriber)
    subscription.cancel()
    subscription.request(.max(2))
    #expect(subscription.cancelCount == 1)
    #expect(subscriber.received.isEmpty)
  }

  @Test func anActionCancellableWithANonSendableClosureRunsOnceThroughAnyCancellable() {
    let counter = Counter()
    let token = AnyCancellable(ActionCancellable { counter.value += 1 })
    token.cancel()
    token.cancel()
    #expect(counter.value == 1)
    var set = Set<AnyCancellable>()
    ActionCancellable { counter.value += 10 }.store(in: &set)
    set.removeAll()
    #expect(counter.value == 11)
  }

  @MainActor @Test func aMainActorModelStoresItsSubscriptionsInASet() {
    let model = SearchModel()
    model.bind()
    model.queries.send("swift")
    #expect(model.query == "SWIFT")
    #expect(model.results == ["SWIFT"])
    #expect(model.cancellables.count == 3)
    model.cancellables.removeAll()
    model.queries.send("gone")
    #expect(model.results == ["SWIFT"])
  }

  @Test func subjectsAndTokensCrossIntoTasks() async {
    let subject = PassthroughSubject<Int, Never>()
    let current = CurrentValueSubject<Int, Never>(0)
    let sum = Counter()
    let token = subject.sink { sum.value += $0 }
    await Task {
      subject.send(2)
      current.send(5)
    }.value
    await Task { token.cancel() }.value
    subject.send(100)
    #expect(sum.value == 2)
    #expect(current.value == 5)
  }

  @Test func aManualSchedulerWithMutableStateDrivesReceiveOn() {
    let clock = ManualClock()
    let subject = PassthroughSubject<Int, Never>()
    let seen = Counter()
    let token = subject.receive(on: clock).sink { seen.value = seen.value * 10 + $0 }
    subject.send(1)
    subject.send(2)
    #expect(seen.value == 0)
    clock.advance(by: .zero)
    #expect(seen.value == 12)
    token.cancel()
  }

  @Test func aManualSchedulersRepeatingTimerStopsWhenCancelled() {
    let clock = ManualClock()
    let ticks = SharedCounter()
    let timer = clock.schedule(after: clock.now, interval: .seconds(1)) { ticks.increment() }
    clock.advance(by: .milliseconds(2500))
    #expect(ticks.value == 3)
    timer.cancel()
    clock.advance(by: .seconds(5))
    #expect(ticks.value == 3)
  }
}
