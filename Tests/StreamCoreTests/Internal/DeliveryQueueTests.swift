import Testing

@testable import StreamCore

private typealias Queue = DeliveryQueue<Int, TestError>

/// Drains `queue` as a deliverer would, with `perValue` demand returned by each delivery.
private func drainAll(
  _ queue: inout Queue,
  perValue: Subscribers.Demand = .none
) -> (values: [Int], completion: Subscribers.Completion<TestError>?, dropped: [Int]) {
  var values: [Int] = []
  var more = Subscribers.Demand.none
  while let step = queue.nextStep(adding: more) {
    switch step {
    case .value(let value):
      values.append(value)
      more = perValue
    case .completion(let completion, let dropped):
      return (values, completion, Array(dropped))
    }
  }
  return (values, nil, [])
}

@Suite(.timeLimit(.minutes(5))) struct DeliveryQueueTests {
  @Test func enqueue_withoutDemand_queuesAndDoesNotClaim() {
    var queue = Queue(failureOrder: .afterQueuedValues)
    let step1 = queue.enqueue(1)
    #expect(!step1)
    #expect(!queue.drain.isClaimed)
    #expect(Array(queue.values) == [1])
  }

  @Test func request_withQueuedValues_claimsAndDeliversOnlyTheDemand() {
    var queue = Queue(failureOrder: .afterQueuedValues)
    _ = queue.enqueue(1)
    _ = queue.enqueue(2)
    _ = queue.enqueue(3)
    let step1 = queue.request(.max(2))
    #expect(step1)
    let drained = drainAll(&queue)
    #expect(drained.values == [1, 2])
    #expect(drained.completion == nil)
    #expect(!queue.drain.isClaimed)
    #expect(Array(queue.values) == [3])
  }

  @Test func demandReturnedByADelivery_isUsedByTheSameDrain() {
    var queue = Queue(failureOrder: .afterQueuedValues)
    for value in 1...4 { _ = queue.enqueue(value) }
    let step1 = queue.request(.max(1))
    #expect(step1)
    #expect(drainAll(&queue, perValue: .max(1)).values == [1, 2, 3, 4])
  }

  @Test func enqueue_whileAnotherThreadDelivers_doesNotClaim() {
    var queue = Queue(failureOrder: .afterQueuedValues)
    let step1 = queue.request(.max(5))
    #expect(!step1)
    let step2 = queue.enqueue(1)
    #expect(step2)
    let step3 = queue.enqueue(2)
    #expect(!step3)
    #expect(drainAll(&queue).values == [1, 2])
  }

  @Test func finished_waitsForEveryQueuedValue() {
    var queue = Queue(failureOrder: .afterDemandedValues)
    _ = queue.enqueue(1)
    _ = queue.enqueue(2)
    let step1 = queue.finish(.finished)
    #expect(!step1)
    let step2 = queue.request(.max(1))
    #expect(step2)
    #expect(drainAll(&queue).values == [1])
    let step3 = queue.request(.max(1))
    #expect(step3)
    let drained = drainAll(&queue)
    #expect(drained.values == [2])
    #expect(drained.completion == .finished)
    #expect(queue.ended)
  }

  @Test func failure_afterQueuedValues_waitsForDemandLikeFinished() {
    var queue = Queue(failureOrder: .afterQueuedValues)
    _ = queue.enqueue(1)
    let failing = queue.finish(.failure(TestError()))
    #expect(!failing)
    let step1 = queue.request(.max(1))
    #expect(step1)
    let drained = drainAll(&queue)
    #expect(drained.values == [1])
    #expect(drained.completion == .failure(TestError()))
  }

  @Test func failure_afterDemandedValues_overtakesUndemandedValues() {
    var fresh = Queue(failureOrder: .afterDemandedValues)
    for value in 1...3 { _ = fresh.enqueue(value) }
    fresh.demand = .max(1)
    let failing = fresh.finish(.failure(TestError()))
    #expect(failing)
    let drained = drainAll(&fresh)
    #expect(drained.values == [1])
    #expect(drained.completion == .failure(TestError()))
    #expect(drained.dropped == [2, 3])
  }

  @Test func failure_withNoDemand_isDeliverableAtOnce() {
    var queue = Queue(failureOrder: .afterDemandedValues)
    _ = queue.enqueue(1)
    let failing = queue.finish(.failure(TestError()))
    #expect(failing)
    let drained = drainAll(&queue)
    #expect(drained.values.isEmpty)
    #expect(drained.dropped == [1])
  }

  @Test func afterTheCompletion_nothingIsAcceptedOrClaimed() {
    var queue = Queue(failureOrder: .afterQueuedValues)
    let step1 = queue.finish(.finished)
    #expect(step1)
    #expect(drainAll(&queue).completion == .finished)
    let step2 = queue.enqueue(1)
    #expect(!step2)
    let step3 = queue.request(.max(1))
    #expect(!step3)
    let failing = queue.finish(.failure(TestError()))
    #expect(!failing)
    #expect(queue.values.isEmpty)
  }

  @Test func secondCompletion_isIgnored() {
    var queue = Queue(failureOrder: .afterQueuedValues)
    _ = queue.enqueue(1)
    _ = queue.finish(.finished)
    let failing = queue.finish(.failure(TestError()))
    #expect(!failing)
    let step1 = queue.request(.unlimited)
    #expect(step1)
    #expect(drainAll(&queue).completion == .finished)
  }

  @Test func cancel_handsBackACompletionNotYetDelivered() {
    var queue = Queue(failureOrder: .afterQueuedValues)
    _ = queue.enqueue(1)
    _ = queue.finish(.failure(TestError()))
    let released = queue.cancel()
    #expect(released.completion != nil)
    #expect(queue.completion == nil)
  }

  @Test func cancel_endsAndHandsBackTheQueuedValues() {
    var queue = Queue(failureOrder: .afterQueuedValues)
    _ = queue.enqueue(1)
    _ = queue.enqueue(2)
    let released = queue.cancel()
    #expect(Array(released.values) == [1, 2])
    let step1 = queue.request(.max(1))
    #expect(!step1)
    #expect(!queue.hasDeliverableWork)
  }
}
