import Dispatch
import PropertyWrappers
import StreamCore
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct PropertyTests {
  @Test func didSet_replaysTheCurrentValueThenEveryAssignment() {
    let property = Property(value: 0)
    property.value = 1
    let recorder = RecordingSubscriber<Int, Never>()
    property.didSet.subscribe(recorder)
    for _ in 0..<3 {
      property.value += 1
    }
    #expect(recorder.events == [.subscription, .value(1), .value(2), .value(3), .value(4)])
  }

  @Test func equalValue_isSentAgain() {
    let property = Property(value: "x")
    let recorder = RecordingSubscriber<String, Never>()
    property.didSet.subscribe(recorder)
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
    property.didSet.subscribe(first)
    property.value = 100
    let second = RecordingSubscriber<Int, Never>()
    property.didSet.subscribe(second)
    #expect(first.values == [45, 100])
    #expect(second.values == [100])
  }

  @Test func noDemand_latestValueIsKept() {
    let property = Property(value: 0)
    let recorder = RecordingSubscriber<Int, Never>(initialDemand: .max(1))
    property.didSet.subscribe(recorder)
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
      property.didSet.subscribe(recorder)
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
      property.didSet.sink { seen.append($0) }.store(in: &cancellables)
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
    property.didSet.subscribe(doubler)
    property.didSet.subscribe(recorder)
    property.value = 1
    #expect(recorder.values == [0, 1, 2])
    #expect(property.value == 2)
  }

  @Test func modify_isAtomicAcrossThreads() {
    let property = Property(value: 0)
    let recorder = RecordingSubscriber<Int, Never>()
    property.didSet.subscribe(recorder)
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
    property.didSet.subscribe(recorder)
    DispatchQueue.concurrentPerform(iterations: 8) { thread in
      for step in 1...250 {
        property.value = thread * 1000 + step
      }
    }
    #expect(recorder.values.count == 1 + 8 * 250)
    #expect(recorder.values.last == property.value)
  }
}
