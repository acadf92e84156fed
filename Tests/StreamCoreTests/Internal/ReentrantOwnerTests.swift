import Testing

@testable import StreamCore

/// Thread-free: the threads are `ThreadID` values made up by the test.
@Suite(.timeLimit(.minutes(5))) struct ReentrantOwnerTests {
  let me = ThreadID(rawValue: 1)
  let other = ThreadID(rawValue: 2)

  @Test func claim_unowned_makesTheCallerTheOuterDeliverer() {
    var owner = ReentrantOwner()
    #expect(!owner.isOwned)
    let claim = owner.claim(for: me, waiting: true)
    #expect(claim == .outer)
    #expect(owner.isOwned)
  }

  @Test func claim_fromTheOwningThread_isReentrant() {
    var owner = ReentrantOwner(ownedBy: me)
    let claim = owner.claim(for: me, waiting: false)
    #expect(claim == .reentrant)
    #expect(owner.isOwned)
  }

  @Test func claim_fromTheOwningThreadWithSomethingWaiting_queues() {
    var owner = ReentrantOwner(ownedBy: me)
    let claim = owner.claim(for: me, waiting: true)
    #expect(claim == .queued)
  }

  @Test func claim_fromAnotherThread_queuesAndLeavesTheOwner() {
    var owner = ReentrantOwner(ownedBy: me)
    let claim = owner.claim(for: other, waiting: false)
    #expect(claim == .queued)
    // The owner is unchanged: its thread still delivers re-entrantly.
    let again = owner.claim(for: me, waiting: false)
    #expect(again == .reentrant)
  }

  @Test func claim_evaluatesWaitingOnlyForTheOwningThread() {
    var evaluated = 0
    var owner = ReentrantOwner()
    _ = owner.claim(
      for: me,
      waiting: {
        evaluated += 1
        return false
      }()
    )
    _ = owner.claim(
      for: other,
      waiting: {
        evaluated += 1
        return false
      }()
    )
    #expect(evaluated == 0)
    _ = owner.claim(
      for: me,
      waiting: {
        evaluated += 1
        return false
      }()
    )
    #expect(evaluated == 1)
  }

  @Test func release_letsAnotherThreadClaim() {
    var owner = ReentrantOwner(ownedBy: me)
    owner.release()
    #expect(!owner.isOwned)
    let claim = owner.claim(for: other, waiting: false)
    #expect(claim == .outer)
    let mine = owner.claim(for: me, waiting: false)
    #expect(mine == .queued)
  }

  @Test func release_unowned_doesNothing() {
    var owner = ReentrantOwner()
    owner.release()
    #expect(!owner.isOwned)
  }

  @Test func admits_withoutClaiming() {
    let unowned = ReentrantOwner()
    #expect(unowned.admits(other, waiting: true))
    #expect(!unowned.isOwned)
    let owned = ReentrantOwner(ownedBy: me)
    #expect(owned.admits(me, waiting: false))
    #expect(!owned.admits(me, waiting: true))
    #expect(!owned.admits(other, waiting: false))
  }

  /// The owner delivers (outer), a value from inside the delivery goes through at once
  /// (re-entrant), values from another thread queue, and the drain delivers them in order, then
  /// the completion, and lets go.
  @Test func run_deliversTheQueueInOrderThenTheCompletionAndReleases() {
    let lock = Lock()
    let downstream = LoggingSubscriber()
    nonisolated(unsafe) var owner = ReentrantOwner()
    nonisolated(unsafe) var queue: [Int] = []
    nonisolated(unsafe) var completionPending = false

    /// Offers `value` from `thread`; returns whether the caller must drain.
    func offer(_ value: Int, from thread: ThreadID) -> Bool {
      let claim = lock.withLock { () -> ReentrantOwner.Claim in
        let claim = owner.claim(for: thread, waiting: !queue.isEmpty || completionPending)
        if claim == .queued { queue.append(value) }
        return claim
      }
      if claim != .queued { _ = downstream.receive(value) }
      return claim == .outer
    }

    #expect(offer(1, from: me))
    #expect(!offer(2, from: me))  // inside the delivery of 1: re-entrant
    #expect(!offer(3, from: other))
    #expect(!offer(4, from: other))
    lock.withLock { completionPending = true }
    #expect(!offer(5, from: me))  // behind the queue: queued too, not re-entrant

    ReentrantOwner.run(lock, delivering: downstream, adding: .none) { _ in
      if !queue.isEmpty { return .deliver(queue.removeFirst()) }
      if completionPending {
        completionPending = false
        owner.release()  // a real conduit ends here, in the same critical section
        return .complete(.finished)
      }
      owner.release()
      return nil
    }
    #expect(downstream.log == ["1", "2", "3", "4", "5", "end"])
    #expect(!owner.isOwned)
    #expect(offer(6, from: other))  // let go: the next offer, from any thread, is outer
  }

  /// `next` is given the demand the last delivery returned, and nothing runs after a
  /// completion.
  @Test func run_passesTheReturnedDemandAndStopsAfterTheCompletion() {
    let lock = Lock()
    let downstream = LoggingSubscriber(returning: .max(2))
    var asked: [Subscribers.Demand] = []
    ReentrantOwner.run(lock, delivering: downstream, adding: .max(5)) { more in
      asked.append(more)
      return asked.count < 3 ? .deliver(asked.count) : .complete(.finished)
    }
    #expect(asked == [.max(5), .max(2), .max(2)])
    #expect(downstream.log == ["1", "2", "end"])
  }
}

/// Logs what it receives and returns a fixed demand for each value.
private final class LoggingSubscriber: Subscriber, @unchecked Sendable {
  typealias Input = Int
  typealias Failure = Never

  let returning: Subscribers.Demand
  var log: [String] = []

  init(returning: Subscribers.Demand = .none) {
    self.returning = returning
  }

  func receive(subscription: any Subscription) {}

  func receive(_ input: Int) -> Subscribers.Demand {
    log.append("\(input)")
    return returning
  }

  func receive(completion: Subscribers.Completion<Never>) {
    log.append("end")
  }
}
