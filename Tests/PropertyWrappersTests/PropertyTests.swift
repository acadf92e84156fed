import Dispatch
import PropertyWrappers
import StreamCore
import StreamSwiftySignals
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct PropertyTests {
  // Issue 15: every subscription has a description and a mirror. A dispatching end point's is
  // its queue hop, described as `receive(on:)`'s.
  @Test func dispatchingSubscription_describesItselfAsReceiveOn_andMirrorsItsParts() throws {
    let property = Property(value: 0)
    let queue = DispatchQueue(label: "PropertyTests.mirror")
    let recorder = RecordingSubscriber<Int, Never>(initialDemand: nil)
    property.didSet.dispatch(to: queue).subscribe(recorder)
    let subscription = try #require(recorder.subscription)
    #expect(String(describing: subscription) == "ReceiveOn")
    let playground = subscription as? any CustomPlaygroundDisplayConvertible
    #expect(playground?.playgroundDescription as? String == "ReceiveOn")
    let children = { Mirror(reflecting: subscription).children }
    #expect(children().map(\.label) == ["downstream", "upstreamSubscription", "queue"])
    let values = Array(children()).map(\.value)
    #expect(values[0] as? RecordingSubscriber<Int, Never> === recorder)
    #expect(String(describing: values[1]) == "Optional(CurrentValueSubject)")
    #expect(values[2] as? DispatchQueue === queue)
    subscription.cancel()
    let ended = Array(children()).map { String(describing: $0.value) }
    #expect(ended.prefix(2) == ["nil", "nil"])
  }

  @Test func didSet_replaysTheCurrentValueThenEveryAssignment() {
    let property = Property(value: 0)
    property.value = 1
    let recorder = RecordingSubscriber<Int, Never>()
    property.didSet.onAssigningThread().subscribe(recorder)
    for _ in 0..<3 {
      property.value += 1
    }
    #expect(recorder.events == [.subscription, .value(1), .value(2), .value(3), .value(4)])
  }

  @Test func equalValue_isSentAgain() {
    let property = Property(value: "x")
    let recorder = RecordingSubscriber<String, Never>()
    property.didSet.onAssigningThread().subscribe(recorder)
    property.value = "x"
    #expect(recorder.values == ["x", "x"])
  }

  @Test func readAfterWrite_returnsTheNewValue() {
    let property = Property(value: 56)
    property.value = 67
    #expect(property.value == 67)
  }

  @Test func eachNewSubscriber_receivesTheLatestValue() {
    let property = Property(value: 45)
    let first = RecordingSubscriber<Int, Never>()
    property.didSet.onAssigningThread().subscribe(first)
    property.value = 100
    let second = RecordingSubscriber<Int, Never>()
    property.didSet.onAssigningThread().subscribe(second)
    #expect(first.values == [45, 100])
    #expect(second.values == [100])
  }

  @Test func noDemand_latestValueIsKept() {
    let property = Property(value: 0)
    let recorder = RecordingSubscriber<Int, Never>(initialDemand: .max(1))
    property.didSet.onAssigningThread().subscribe(recorder)
    property.value = 1
    property.value = 2
    recorder.request(.max(1))
    #expect(recorder.values == [0, 2])
    #expect(recorder.violations.isEmpty)
  }

  @Test func deinit_sendsFinished() {
    let recorder = RecordingSubscriber<Int, Never>()
    weak var weakProperty: Property<Int>?
    do {
      let property = Property(value: 1)
      weakProperty = property
      property.didSet.onAssigningThread().subscribe(recorder)
    }
    #expect(weakProperty == nil)
    #expect(recorder.events == [.subscription, .value(1), .completion(.finished)])
  }

  @Test func storedSubscription_doesNotRetainTheProperty() {
    weak var weakProperty: Property<Int>?
    var cancellables = Set<AnyCancellable>()
    var seen: [Int] = []
    do {
      let property = Property(value: 1)
      weakProperty = property
      property.didSet.onAssigningThread().sink { seen.append($0) }.store(in: &cancellables)
      property.value = 2
    }
    #expect(weakProperty == nil)
    #expect(seen == [1, 2])
    #expect(cancellables.count == 1)
  }

  @Test func assignmentInsideSubscriber_isDeliveredAfterTheCurrentValue() {
    let property = Property(value: 0)
    let doubler = RecordingSubscriber<Int, Never> { value in
      if value == 1 { property.value = 2 }
      return .none
    }
    let recorder = RecordingSubscriber<Int, Never>()
    property.didSet.onAssigningThread().subscribe(doubler)
    property.didSet.onAssigningThread().subscribe(recorder)
    property.value = 1
    #expect(recorder.values == [0, 1, 2])
    #expect(property.value == 2)
  }

  @Test func modify_isAtomicAcrossThreads() {
    let property = Property(value: 0)
    let recorder = RecordingSubscriber<Int, Never>()
    property.didSet.onAssigningThread().subscribe(recorder)
    DispatchQueue.concurrentPerform(iterations: 8) { _ in
      for _ in 0..<250 {
        property.modify { $0 += 1 }
      }
    }
    #expect(property.value == 2000)
    #expect(recorder.values == Array(0...2000))
  }

  @Test func concurrentAssignments_lastValueWins() {
    let property = Property(value: 0)
    let recorder = RecordingSubscriber<Int, Never>()
    property.didSet.onAssigningThread().subscribe(recorder)
    DispatchQueue.concurrentPerform(iterations: 8) { thread in
      for step in 1...250 {
        property.value = thread * 1000 + step
      }
    }
    #expect(recorder.values.count == 1 + 8 * 250)
    #expect(recorder.values.last == property.value)
  }

  // SwiftySignals' `didSet` end point runs the closures after it on the main queue by default,
  // asynchronously.
  @Test func didSet_deliversOnTheMainQueueByDefault() async {
    let property = Property(value: 0)
    let log = LockedState<[String]>([])
    let arrived = AsyncSignal()
    let token = property.didSet.sink { value in
      log.withLock { $0.append("\(value) \(MainQueueProbe.isCurrent ? "main" : "other")") }
      arrived.signal()
    }
    property.value = 1  // assigned off the main queue
    for _ in 0..<2 { #expect(await arrived.wait()) }
    #expect(log.withLock { $0 } == ["0 main", "1 main"])
    token.cancel()
  }

  @MainActor @Test func didSet_assignedOnTheMainQueue_stillDeliversAsynchronously() async {
    let property = Property(value: 0)
    let recorder = RecordingSubscriber<Int, Never>()
    property.didSet.subscribe(recorder)
    property.value = 1
    #expect(recorder.values.isEmpty)
    await MainQueueProbe.drain()
    #expect(recorder.values == [0, 1])
  }

  @Test func noDispatch_deliversOnAPrivateSerialQueueInOrder() async {
    let property = Property(value: 0)
    let log = LockedState<[String]>([])
    let arrived = AsyncSignal()
    let token = property.didSet.noDispatch().sink { value in
      log.withLock { $0.append("\(value) \(MainQueueProbe.isCurrent ? "main" : "private")") }
      arrived.signal()
    }
    await MainActor.run {
      for value in 1...3 { property.value = value }
    }
    for _ in 0..<4 { #expect(await arrived.wait()) }
    #expect(log.withLock { $0 } == ["0 private", "1 private", "2 private", "3 private"])
    token.cancel()
  }

  @Test func dispatchToAConcurrentQueue_keepsTheOrder() async {
    let queue = DispatchQueue(label: "PropertyTests.concurrent", attributes: .concurrent)
    let property = Property(value: 0)
    let log = LockedState<[Int]>([])
    let arrived = AsyncSignal()
    let token = property.didSet.dispatch(to: queue).sink { value in
      log.withLock { $0.append(value) }
      if value == 200 { arrived.signal() }
    }
    for value in 1...200 { property.value = value }
    #expect(await arrived.wait())
    #expect(log.withLock { $0 } == Array(0...200))
    token.cancel()
  }

  @Test func dispatchQoS_honoursDemand_andSendsTheLatestValueWhenAsked() async throws {
    let property = Property(value: 0)
    let endPoint = property.didSet.dispatch(qos: .userInitiated)
    let queue = try #require(endPoint.queue)
    let recorder = RecordingSubscriber<Int, Never>(initialDemand: .max(1))
    endPoint.subscribe(recorder)
    property.value = 1
    property.value = 2
    await withCheckedContinuation { continuation in queue.async { continuation.resume() } }
    #expect(recorder.values == [0])
    recorder.request(.max(1))
    await withCheckedContinuation { continuation in queue.async { continuation.resume() } }
    #expect(recorder.values == [0, 2])
    #expect(recorder.violations.isEmpty)
  }

  @Test func deinit_finishesOnTheQueueAfterTheValues() async {
    let recorder = RecordingSubscriber<Int, Never>()
    let queue = DispatchQueue(label: "PropertyTests.finish")
    do {
      let property = Property(value: 1)
      property.didSet.dispatch(to: queue).subscribe(recorder)
      property.value = 2
    }
    await withCheckedContinuation { continuation in queue.async { continuation.resume() } }
    #expect(recorder.events == [.subscription, .value(1), .value(2), .completion(.finished)])
  }

  @Test func cancel_dropsWhatIsStillOnItsWay_andReleasesTheSubscriber() async {
    let queue = DispatchQueue(label: "PropertyTests.cancel")
    let property = Property(value: 0)
    weak var weakRecorder: RecordingSubscriber<Int, Never>?
    let blocker = DispatchSemaphore(value: 0)
    queue.async { blocker.wait() }  // holds the queue until the cancel
    do {
      let recorder = RecordingSubscriber<Int, Never>()
      weakRecorder = recorder
      property.didSet.dispatch(to: queue).subscribe(recorder)
      property.value = 1
      recorder.cancel()
      blocker.signal()
      await withCheckedContinuation { continuation in queue.async { continuation.resume() } }
      #expect(recorder.values.isEmpty)
    }
    #expect(weakRecorder == nil)
    property.value = 2
  }

  @Test func didSetOfAReleasedProperty_conforms() {
    let queue = DispatchQueue(label: "PropertyTests.conformance.released")
    PublisherConformance(
      elements: 0,
      makePublisher: { Property(value: 1).didSet.dispatch(to: queue) }
    )
    .run()
    // A released property only finishes, so the rules that need values or a failure skip.
    .expectAllPassed(skipping: ["SC-1.05", "SC-2.04", "SC-3.01", "SC-3.02"])
  }
}
