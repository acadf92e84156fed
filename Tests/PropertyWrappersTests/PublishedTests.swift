import Dispatch
import PropertyWrappers
import StreamCore
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct PublishedTests {
  final class Model {
    @Published var count = 0
    @Published var title = "untitled"
  }

  // Sendable: its only state is @Published storage, which is thread-safe and never reassigned.
  final class SharedModel: @unchecked Sendable {
    @Published var count = 0
  }

  final class Mirrored {
    @Published var source = 0
    @Published var copy = 0
    init() {
      $source.assign(to: &$copy)
    }
  }

  final class Fed {
    @Published var value = 0
    init(from upstream: some Publisher<Int, Never>) {
      upstream.assign(to: &$value)
    }
  }

  @Test func projectedPublisher_replaysCurrentThenNewValues() {
    let model = Model()
    model.count = 1
    let recorder = RecordingSubscriber<Int, Never>()
    model.$count.subscribe(recorder)
    model.count = 2
    model.count = 3
    #expect(recorder.events == [.subscription, .value(1), .value(2), .value(3)])
    #expect(recorder.violations.isEmpty)
  }

  @Test func equalValue_isPublishedAgain() {
    let model = Model()
    let recorder = RecordingSubscriber<Int, Never>()
    model.$count.subscribe(recorder)
    model.count = 0
    model.count = 0
    #expect(recorder.values == [0, 0, 0])
  }

  @Test func initialValueInitializer_setsTheValue() {
    final class Seeded {
      @Published(initialValue: 7) var seven: Int
    }
    let seeded = Seeded()
    let recorder = RecordingSubscriber<Int, Never>()
    seeded.$seven.subscribe(recorder)
    #expect(seeded.seven == 7)
    #expect(recorder.values == [7])
  }

  @Test func subscriber_readsOldValueBeforeStorageChanges() {
    let model = Model()
    var seen: [String] = []
    let token = model.$count.sink { new in seen.append("new \(new), stored \(model.count)") }
    model.count = 1
    model.count = 2
    #expect(seen == ["new 0, stored 0", "new 1, stored 0", "new 2, stored 1"])
    #expect(model.count == 2)
    token.cancel()
  }

  @Test func noDemand_currentValueWaitsAndLatestIsKept() {
    let model = Model()
    let recorder = RecordingSubscriber<Int, Never>(initialDemand: nil)
    model.$count.subscribe(recorder)
    model.count = 1
    model.count = 2
    #expect(recorder.values.isEmpty)
    recorder.request(.max(1))
    model.count = 3
    recorder.request(.max(1))
    #expect(recorder.values == [2, 3])
    #expect(recorder.violations.isEmpty)
  }

  @Test func cancel_stopsDelivery() {
    let model = Model()
    let recorder = RecordingSubscriber<Int, Never>()
    model.$count.subscribe(recorder)
    recorder.cancel()
    model.count = 1
    #expect(recorder.values == [0])
  }

  @Test func propertiesPublishIndependently() {
    let model = Model()
    let counts = RecordingSubscriber<Int, Never>()
    let titles = RecordingSubscriber<String, Never>()
    model.$count.subscribe(counts)
    model.$title.subscribe(titles)
    model.title = "draft"
    #expect(counts.values == [0])
    #expect(titles.values == ["untitled", "draft"])
  }

  @Test func ownerDeinit_releasesOwnerWithoutCompletingSubscribers() {
    weak var weakModel: Model?
    let recorder = RecordingSubscriber<Int, Never>()
    do {
      let model = Model()
      weakModel = model
      model.$count.subscribe(recorder)
      model.count = 1
    }
    #expect(weakModel == nil)
    #expect(recorder.events == [.subscription, .value(0), .value(1)])
  }

  @Test func assignTo_republishesUpstreamValues() {
    let upstream = PassthroughSubject<Int, Never>()
    let model = Fed(from: upstream)
    let recorder = RecordingSubscriber<Int, Never>()
    model.$value.subscribe(recorder)
    upstream.send(1)
    upstream.send(2)
    #expect(model.value == 2)
    #expect(recorder.values == [0, 1, 2])
  }

  @Test func assignTo_requestsUnlimitedAndSubscriberReadsOldValue() {
    let upstream = TestPublisher<Int, Never>()
    let model = Fed(from: upstream)
    var stored: [Int] = []
    let token = model.$value.sink { _ in stored.append(model.value) }
    upstream.send(5)
    upstream.send(6)
    #expect(upstream.requests == [.demand(.unlimited)])
    #expect(stored == [0, 0, 5])
    token.cancel()
  }

  @Test func assignTo_ownerDeinit_cancelsTheSubscription() {
    let upstream = TestPublisher<Int, Never>()
    weak var weakModel: Fed?
    do {
      let model = Fed(from: upstream)
      weakModel = model
      upstream.send(1)
      #expect(model.value == 1)
    }
    #expect(weakModel == nil)
    #expect(upstream.requests == [.demand(.unlimited), .cancel])
  }

  @Test func assignTo_fromAnotherPropertyOfTheSameObject_makesNoRetainCycle() {
    weak var weakModel: Mirrored?
    do {
      let model = Mirrored()
      weakModel = model
      model.source = 4
      #expect(model.copy == 4)
    }
    #expect(weakModel == nil)
  }

  @Test func assignTo_upstreamFinishes_keepsLastValue() {
    let upstream = PassthroughSubject<Int, Never>()
    let model = Fed(from: upstream)
    upstream.send(3)
    upstream.send(completion: .finished)
    model.value = 4
    #expect(model.value == 4)
  }

  @Test func assignmentInsideSubscriber_isDeliveredReentrantly_andTheOuterValueIsStoredLast() {
    // As in Combine: the value is published in `willSet`, so the nested assignment reaches
    // every subscriber first, inside the outer delivery, and the outer one is stored last.
    let model = Model()
    let clamp = model.$count.sink { value in
      if value > 10 { model.count = 10 }
    }
    let recorder = RecordingSubscriber<Int, Never>()
    model.$count.subscribe(recorder)
    model.count = 11
    #expect(recorder.values == [0, 10, 11])
    #expect(model.count == 11)
    clamp.cancel()
  }

  @Test func truncatingInsideTheSink_isOverwrittenByTheOuterAssignment() {
    // The app-code shape of the rule above: a sink that shortens long titles sees the long one,
    // its own short one (re-entrantly), and the property ends with the long title, as in
    // Combine.
    let model = Model()
    model.title = ""
    var seen: [String] = []
    let truncate = model.$title.sink { title in
      seen.append(title)
      if title.count > 3 { model.title = String(title.prefix(3)) }
    }
    model.title = "abcdef"
    #expect(seen == ["", "abcdef", "abc"])
    #expect(model.title == "abcdef")
    truncate.cancel()
  }

  @Test func concurrentAssignments_lastValueReachesEverySubscriber() {
    let model = SharedModel()
    let recorder = RecordingSubscriber<Int, Never>()
    model.$count.subscribe(recorder)
    DispatchQueue.concurrentPerform(iterations: 8) { thread in
      for step in 1...200 {
        model.count = thread * 1000 + step
      }
    }
    #expect(recorder.values.count == 1 + 8 * 200)
    #expect(recorder.values.last == model.count)
    #expect(recorder.violations.isEmpty)
  }

  @Test func subscription_describesItselfAsPublishedSubject() throws {
    // As Combine's, the subscription is a "PublishedSubject" whose mirror names the subject
    // `PublishedSubject<Int>`; after a cancel it shows the demand it had (OpenCombine's
    // `CurrentValueSubjectTests.testCancellation`, run against Combine, for the same conduit).
    let model = Model()
    let recorder = RecordingSubscriber<Int, Never>(initialDemand: nil)
    model.$count.subscribe(recorder)
    let subscription = try #require(recorder.subscription)
    #expect(recorder.subscriptionDescription == "PublishedSubject")
    #expect(
      (subscription as? any CustomPlaygroundDisplayConvertible)?.playgroundDescription as? String
        == "PublishedSubject"
    )
    let children = Mirror(reflecting: subscription).children.map {
      "\($0.label ?? "_"): \($0.value)"
    }
    #expect(children.count == 4)
    #expect(children.first == "parent: Optional(PublishedSubject<Int>)")
    #expect(children.contains("demand: max(0)"))
    subscription.request(.max(3))
    subscription.cancel()
    let ended = Mirror(reflecting: subscription).children.map { "\($0.label ?? "_"): \($0.value)" }
    #expect(ended == ["parent: nil", "downstream: nil", "demand: max(2)", "subject: nil"])
  }
}
