import Dispatch
import PropertyWrappers
import StreamCore
import StreamSnail
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct VariableTests {
  @Test func newSubscriber_receivesTheCurrentValueSynchronously() {
    let variable = Variable(10)
    variable.value = 11
    let recorder = RecordingSubscriber<Int, Never>()
    variable.asObservable().subscribe(recorder)
    #expect(recorder.events == [.subscription, .value(11)])
    variable.value = 12
    #expect(recorder.values == [11, 12])
  }

  @Test func equalValue_isSentAgain() {
    let variable = Variable("a")
    let recorder = RecordingSubscriber<String, Never>()
    variable.asObservable().subscribe(recorder)
    variable.value = "a"
    variable.value = "a"
    #expect(recorder.values == ["a", "a", "a"])
  }

  @Test func optionalVariable_sendsNil() {
    let variable = Variable<String?>(nil)
    let recorder = RecordingSubscriber<String?, Never>()
    variable.asObservable().subscribe(recorder)
    variable.value = "something"
    variable.value = nil
    #expect(recorder.values == [nil, "something", nil])
  }

  @Test func readAfterAssignment_returnsTheNewValue() {
    let variable = Variable(1)
    var readInside: [Int] = []
    let token = variable.asObservable().sink { _ in readInside.append(variable.value) }
    variable.value = 2
    #expect(variable.value == 2)
    #expect(readInside == [1, 2])
    token.cancel()
  }

  @Test func noDemand_currentValueWaitsAndLatestIsKept() {
    let variable = Variable(0)
    let recorder = RecordingSubscriber<Int, Never>(initialDemand: nil)
    variable.asObservable().subscribe(recorder)
    variable.value = 1
    variable.value = 2
    recorder.request(.max(5))
    #expect(recorder.values == [2])
    #expect(recorder.violations.isEmpty)
  }

  @Test func deinit_sendsFinished() {
    let recorder = RecordingSubscriber<Int, Never>()
    weak var weakVariable: Variable<Int>?
    do {
      let variable = Variable(1)
      weakVariable = variable
      variable.asObservable().subscribe(recorder)
      variable.value = 2
    }
    #expect(weakVariable == nil)
    #expect(recorder.events == [.subscription, .value(1), .value(2), .completion(.finished)])
  }

  @Test func subscriberAfterDeinit_receivesOnlyTheCompletion() {
    var observable: AnyPublisher<Int, Never>?
    do {
      let variable = Variable(1)
      observable = variable.asObservable()
    }
    let recorder = RecordingSubscriber<Int, Never>()
    observable?.subscribe(recorder)
    #expect(recorder.values.isEmpty)
    #expect(recorder.completion == .finished)
  }

  @Test func assignmentInsideSubscriber_reachesEverySubscriberInOrder() {
    let variable = Variable(0)
    let first = RecordingSubscriber<Int, Never> { value in
      if value == 1 { variable.value = 2 }
      return .none
    }
    let second = RecordingSubscriber<Int, Never>()
    variable.asObservable().subscribe(first)
    variable.asObservable().subscribe(second)
    variable.value = 1
    #expect(first.values == [0, 1, 2])
    #expect(second.values == [0, 1, 2])
    #expect(variable.value == 2)
  }

  @Test func bind_receiverFollowsTheArgument() {
    let isLoaderAnimating = Variable(false)
    let isLoading = Variable(true)
    isLoaderAnimating.bind(to: isLoading)
    #expect(isLoaderAnimating.value == true)
    isLoading.value = false
    #expect(isLoaderAnimating.value == false)
    isLoaderAnimating.value = true
    #expect(isLoading.value == false)
  }

  @Test func bind_followerSendsEachValueOfTheArgument() {
    let follower = Variable(0)
    let leader = Variable(5)
    let recorder = RecordingSubscriber<Int, Never>()
    follower.asObservable().subscribe(recorder)
    follower.bind(to: leader)
    leader.value = 6
    leader.value = 6
    #expect(recorder.values == [0, 5, 6, 6])
  }

  @Test func bind_cancel_stopsFollowing() {
    let follower = Variable(0)
    let leader = Variable(1)
    let binding = follower.bind(to: leader)
    binding.cancel()
    leader.value = 2
    #expect(follower.value == 1)
  }

  @Test func bind_doesNotRetainTheFollower() {
    let leader = Variable(1)
    weak var weakFollower: Variable<Int>?
    do {
      let follower = Variable(0)
      weakFollower = follower
      follower.bind(to: leader)
      leader.value = 2
      #expect(follower.value == 2)
    }
    #expect(weakFollower == nil)
    leader.value = 3
  }

  @Test func bind_leaderDeinit_followerKeepsItsValue() {
    let follower = Variable(0)
    do {
      let leader = Variable(7)
      follower.bind(to: leader)
    }
    #expect(follower.value == 7)
    follower.value = 8
    #expect(follower.value == 8)
  }

  @Test func bind_uniqueBothWays_settlesOnOneValue() {
    let left = Unique(1)
    let right = Unique(2)
    left.bind(to: right)
    right.bind(to: left)
    #expect(left.value == 2)
    #expect(right.value == 2)
    left.value = 3
    #expect(right.value == 3)
    right.value = 4
    #expect(left.value == 4)
  }

  @Test func map_holdsTheTransformedValueAndFollows() {
    let count = Variable(1)
    let label = count.map { "\($0) items" }
    #expect(label.value == "1 items")
    count.value = 2
    #expect(label.value == "2 items")
  }

  @Test func map_runsTheTransformOncePerValue() {
    let source = Variable(1)
    let calls = LockedState(0)
    let mapped = source.map { value -> Int in
      calls.withLock { $0 += 1 }
      return value * 10
    }
    source.value = 2
    #expect(mapped.value == 20)
    #expect(calls.withLock { $0 } == 2)
  }

  @Test func map_equalValueOnVariableSource_isSentAgain() {
    let source = Variable(1)
    let mapped = source.map { $0 * 2 }
    let recorder = RecordingSubscriber<Int, Never>()
    mapped.asObservable().subscribe(recorder)
    source.value = 1
    #expect(recorder.values == [2, 2])
  }

  @Test func map_equalValueOnUniqueSource_isNotSent() {
    let source = Unique(1)
    let mapped = source.map { $0 * 2 }
    let recorder = RecordingSubscriber<Int, Never>()
    mapped.asObservable().subscribe(recorder)
    source.value = 1
    #expect(recorder.values == [2])
  }

  @Test func map_resultNotKept_livesAsLongAsTheSource() {
    let source = Variable(1)
    let recorder = RecordingSubscriber<Int, Never>()
    source.map { $0 + 100 }.asObservable().subscribe(recorder)
    source.value = 2
    #expect(recorder.values == [101, 102])
    #expect(recorder.completion == nil)
  }

  @Test func map_sourceDeinit_releasesAnUnkeptResult() {
    let recorder = RecordingSubscriber<Int, Never>()
    weak var weakMapped: Variable<Int>?
    do {
      let source = Variable(1)
      let mapped = source.map { $0 + 100 }
      weakMapped = mapped
      mapped.asObservable().subscribe(recorder)
    }
    #expect(weakMapped == nil)
    #expect(recorder.events == [.subscription, .value(101), .completion(.finished)])
  }

  @Test func map_doesNotRetainTheSource() {
    weak var weakSource: Variable<Int>?
    var mapped: Variable<String>?
    do {
      let source = Variable(1)
      weakSource = source
      mapped = source.map { "\($0)" }
    }
    #expect(weakSource == nil)
    #expect(mapped?.value == "1")
  }

  @Test func laterSubscriber_stillReceivesTheCurrentValue() {
    let variable = Variable(10)
    let observable = variable.asObservable()
    let early = RecordingSubscriber<Int, Never>()
    observable.subscribe(early)
    let late = RecordingSubscriber<Int, Never>()
    observable.subscribe(late)
    #expect(early.values == [10])
    #expect(late.values == [10])
  }

  @Test func modify_changesTheValueInPlace() {
    let variable = Variable([1])
    let recorder = RecordingSubscriber<[Int], Never>()
    variable.asObservable().subscribe(recorder)
    variable.modify { $0.append(2) }
    #expect(variable.value == [1, 2])
    #expect(recorder.values == [[1], [1, 2]])
  }

  @Test func unique_sendsOnlyChanges() {
    let status = Unique("idle")
    let recorder = RecordingSubscriber<String, Never>()
    status.asObservable().subscribe(recorder)
    status.value = "idle"
    status.value = "busy"
    status.value = "busy"
    status.value = "idle"
    #expect(recorder.values == ["idle", "busy", "idle"])
  }

  @Test func unique_initialValueIsSentOnce() {
    let unique = Unique(3)
    let recorder = RecordingSubscriber<Int, Never>()
    unique.asObservable().subscribe(recorder)
    #expect(recorder.values == [3])
  }

  @Test func unique_modifyToAnEqualValue_sendsNothing() {
    let unique = Unique(4)
    let recorder = RecordingSubscriber<Int, Never>()
    unique.asObservable().subscribe(recorder)
    unique.modify { $0 += 0 }
    unique.modify { $0 += 1 }
    #expect(recorder.values == [4, 5])
  }

  @Test func unique_asVariable_stillSkipsEqualValues() {
    let unique = Unique(1)
    let variable: Variable<Int> = unique
    let recorder = RecordingSubscriber<Int, Never>()
    variable.asObservable().subscribe(recorder)
    variable.value = 1
    #expect(recorder.values == [1])
  }

  @Test func concurrentAssignments_lastValueWinsAndReachesTheSubscriber() {
    let variable = Variable(0)
    let recorder = RecordingSubscriber<Int, Never>()
    variable.asObservable().subscribe(recorder)
    DispatchQueue.concurrentPerform(iterations: 8) { thread in
      for step in 1...250 {
        variable.value = thread * 1000 + step
      }
    }
    #expect(recorder.values.count == 1 + 8 * 250)
    #expect(recorder.values.last == variable.value)
    #expect(recorder.violations.isEmpty)
  }

  @Test func concurrentModify_losesNoIncrement() {
    let variable = Variable(0)
    DispatchQueue.concurrentPerform(iterations: 8) { _ in
      for _ in 0..<250 {
        variable.modify { $0 += 1 }
      }
    }
    #expect(variable.value == 2000)
  }

  @Test func concurrentUniqueAssignments_neverSendTheSameValueTwiceInARow() {
    let unique = Unique(0)
    let recorder = RecordingSubscriber<Int, Never>()
    unique.asObservable().subscribe(recorder)
    DispatchQueue.concurrentPerform(iterations: 8) { thread in
      for step in 0..<250 {
        unique.value = (thread + step) % 3
      }
    }
    let values = recorder.values
    #expect(zip(values, values.dropFirst()).allSatisfy { $0 != $1 })
    #expect(values.last == unique.value)
  }

  @Test func concurrentBinding_followerEndsOnTheLeadersValue() {
    let leader = Variable(0)
    let follower = Variable(-1)
    follower.bind(to: leader)
    DispatchQueue.concurrentPerform(iterations: 8) { thread in
      for step in 1...100 {
        leader.value = thread * 1000 + step
      }
    }
    #expect(follower.value == leader.value)
  }
}
