import Dispatch
import Observation
import StreamCore
import StreamObservation
import StreamTesting
import Testing

/// `model.publisher(for:scheduler:)`: one property of one `@Observable` model.
@Suite(.timeLimit(.minutes(5))) struct ObservablePublisherTests {
  let scheduler = TestScheduler()

  @Test func subscription_readsTheCurrentValueOnTheSchedulerOnceDemandArrives() {
    let model = Counter(count: 7)
    let recorder = RecordingSubscriber<Int, Never>(initialDemand: nil)
    model.publisher(for: \.count, scheduler: scheduler).subscribe(recorder)
    scheduler.advance()
    #expect(recorder.events == [.subscription])
    recorder.request(.max(1))
    #expect(recorder.events == [.subscription])
    scheduler.advance()
    #expect(recorder.events == [.subscription, .value(7)])
  }

  @Test func change_deliversTheValueAfterTheChangeOnTheNextTurn() {
    let model = Counter()
    let recorder = RecordingSubscriber<Int, Never>()
    model.publisher(for: \.count, scheduler: scheduler).subscribe(recorder)
    scheduler.advance()
    model.count = 1
    #expect(recorder.values == [0])
    scheduler.advance()
    model.count = 2
    scheduler.advance()
    #expect(recorder.events == [.subscription, .value(0), .value(1), .value(2)])
  }

  @Test func manyChangesBetweenTwoTurns_coalesceIntoTheLastValue() {
    let model = Counter()
    let recorder = RecordingSubscriber<Int, Never>()
    model.publisher(for: \.count, scheduler: scheduler).subscribe(recorder)
    scheduler.advance()
    for value in 1...100 {
      model.count = value
    }
    scheduler.advance()
    #expect(recorder.values == [0, 100])
    scheduler.advance(by: 10)
    #expect(recorder.values == [0, 100])
  }

  @Test func changeOfAnotherProperty_deliversNothing() {
    let model = Counter()
    let recorder = RecordingSubscriber<Int, Never>()
    model.publisher(for: \.count, scheduler: scheduler).subscribe(recorder)
    scheduler.advance()
    model.label = "other"
    scheduler.advance()
    #expect(recorder.values == [0])
  }

  @Test func changeFromAnotherThread_isReadOnTheSchedulersTurn() {
    let model = Counter()
    let recorder = RecordingSubscriber<Int, Never>()
    model.publisher(for: \.count, scheduler: scheduler).subscribe(recorder)
    scheduler.advance()
    // The test thread waits while the other thread changes the model, so they never race.
    let handed = Handed(value: model)
    let done = DispatchSemaphore(value: 0)
    DispatchQueue.global().async {
      handed.value.count = 5
      done.signal()
    }
    #expect(done.wait(timeout: .now() + 60) == .success)
    #expect(recorder.values == [0])
    scheduler.advance()
    #expect(recorder.values == [0, 5])
  }

  @Test func changeFromInsideTheSubscriber_isDeliveredAfterItsValue() {
    let model = Counter()
    let recorder = RecordingSubscriber<Int, Never> { value in
      if value < 3 { model.count = value + 1 }
      return .none
    }
    model.publisher(for: \.count, scheduler: scheduler).subscribe(recorder)
    scheduler.advance()
    #expect(recorder.events == [.subscription, .value(0), .value(1), .value(2), .value(3)])
  }

  @Test func burstFromInsideTheSubscriber_coalescesIntoItsLastValue() {
    let model = Counter()
    let recorder = RecordingSubscriber<Int, Never> { value in
      if value == 0 {
        model.count = 1
        model.count = 2
      }
      return .none
    }
    model.publisher(for: \.count, scheduler: scheduler).subscribe(recorder)
    scheduler.advance()
    #expect(recorder.values == [0, 2])
  }

  @Test func changesWithoutDemand_giveTheValueOfTheMomentDemandArrives() {
    let model = Counter()
    let recorder = RecordingSubscriber<Int, Never>(initialDemand: .max(1))
    model.publisher(for: \.count, scheduler: scheduler).subscribe(recorder)
    scheduler.advance()
    model.count = 1
    scheduler.advance()
    model.count = 2
    scheduler.advance()
    #expect(recorder.values == [0])
    recorder.request(.max(1))
    scheduler.advance()
    #expect(recorder.values == [0, 2])
    #expect(recorder.violations.isEmpty)
  }

  @Test func demandWithoutAChange_waitsForTheNextChange() {
    let model = Counter()
    let recorder = RecordingSubscriber<Int, Never>(initialDemand: .max(1))
    model.publisher(for: \.count, scheduler: scheduler).subscribe(recorder)
    scheduler.advance()
    recorder.request(.max(2))
    scheduler.advance()
    #expect(recorder.values == [0])
    model.count = 1
    scheduler.advance()
    model.count = 2
    scheduler.advance()
    model.count = 3
    scheduler.advance()
    #expect(recorder.values == [0, 1, 2])
    #expect(recorder.violations.isEmpty)
  }

  @Test func demandReturnedFromReceive_addsUp() {
    let model = Counter()
    let recorder = RecordingSubscriber<Int, Never>(initialDemand: .max(1), demandPerValue: .max(1))
    model.publisher(for: \.count, scheduler: scheduler).subscribe(recorder)
    scheduler.advance()
    model.count = 1
    scheduler.advance()
    #expect(recorder.values == [0, 1])
    #expect(recorder.violations.isEmpty)
  }

  @Test func cancel_stopsDeliveryAndReleasesTheModel() {
    var model: Counter? = Counter()
    weak let released = model
    let recorder = RecordingSubscriber<Int, Never>()
    model!.publisher(for: \.count, scheduler: scheduler).subscribe(recorder)
    scheduler.advance()
    model!.count = 1
    recorder.cancel()
    scheduler.advance()
    #expect(recorder.events == [.subscription, .value(0)])
    model = nil
    #expect(released == nil)
  }

  @Test func subscription_doesNotKeepTheModelAlive_andFinishesWhenItGoes() {
    var model: Counter? = Counter()
    weak let released = model
    let recorder = RecordingSubscriber<Int, Never>()
    model!.publisher(for: \.count, scheduler: scheduler).subscribe(recorder)
    scheduler.advance()
    model = nil
    #expect(released == nil)
    scheduler.advance()
    #expect(recorder.events == [.subscription, .value(0), .completion(.finished)])
  }

  @Test func modelGoneBeforeDemand_finishesOnTheFirstRequest() {
    var model: Counter? = Counter()
    let recorder = RecordingSubscriber<Int, Never>(initialDemand: nil)
    model!.publisher(for: \.count, scheduler: scheduler).subscribe(recorder)
    model = nil
    recorder.request(.max(1))
    scheduler.advance()
    #expect(recorder.events == [.subscription, .completion(.finished)])
  }

  @Test func untrackedProperty_sendsItsValueThenFinishes() {
    let model = Counter()
    model.untracked = 4
    let recorder = RecordingSubscriber<Int, Never>()
    model.publisher(for: \.untracked, scheduler: scheduler).subscribe(recorder)
    scheduler.advance()
    #expect(recorder.events == [.subscription, .value(4), .completion(.finished)])
  }

  @Test func modelThatSubscribesToItself_isReleased() {
    final class Holder {
      var cancellables: Set<AnyCancellable> = []
    }
    var model: Counter? = Counter()
    weak let released = model
    let holder = Holder()
    // The model's own subscription, kept where the model keeps it: no retain cycle.
    model!.publisher(for: \.count, scheduler: scheduler)
      .sink { [weak model] in model?.label = "\($0)" }
      .store(in: &holder.cancellables)
    scheduler.advance()
    #expect(model?.label == "0")
    model = nil
    #expect(released == nil)
  }

  @Test func mainQueue_deliversOnTheMainThread() async {
    let model = Counter()
    var cancellable: AnyCancellable?
    let onMain = await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
      let handed = Handed(value: continuation)
      // Resumed once: the model doesn't change, so the first value is the only one.
      cancellable = model.publisher(for: \.count, scheduler: DispatchQueue.main)
        .sink { _ in handed.value.resume(returning: MainQueue.isCurrent) }
    }
    cancellable?.cancel()
    #expect(onMain)
  }

  @Test func conformanceKit_passesEveryRule() {
    PublisherConformance(
      timeout: .seconds(10),
      makePublisher: {
        let scheduler = ChangingScheduler()
        return scheduler.model.publisher(for: \.count, scheduler: scheduler)
      }
    )
    .run()
    // It never completes, so the rules about completion are checked by the finite run below.
    .expectAllPassed(skipping: ["SC-1.05", "SC-2.02", "SC-2.03", "SC-2.04", "SC-4.02"])
  }

  @Test func conformanceKit_untrackedProperty_passesEveryRule() {
    // An untracked property gives one value, then `.finished`.
    PublisherConformance(
      elements: 1,
      timeout: .seconds(10),
      makePublisher: {
        let scheduler = ChangingScheduler()
        return scheduler.model.publisher(for: \.untracked, scheduler: scheduler)
      }
    )
    .run()
    // SC-3.02 needs two values; the run above checks it.
    .expectAllPassed(skipping: ["SC-1.05", "SC-2.04", "SC-3.02"])
  }
}

/// Tells whether code runs on the main queue. `swift test` services the main queue all along,
/// on Linux too (its async `main` drains it).
enum MainQueue {
  private static let key = DispatchSpecificKey<Bool>()
  private static let marked: Void = DispatchQueue.main.setSpecific(key: key, value: true)

  static var isCurrent: Bool {
    _ = marked
    return DispatchQueue.getSpecific(key: key) ?? false
  }
}
