import Testing

@testable import StreamCore

/// Records what reaches an ``InnerSubscriber``'s owner through its entries.
private final class InnerOwnerLog<Failure: Error> {
  var events: [String] = []
  var subscription: (any Subscription)?
  var demandPerValue = Subscribers.Demand.none

  let entries = InnerEntries<Int, Failure>(
    name: "Owner",
    subscribedEntry: { owner, tag, subscription in
      let log = owner as! InnerOwnerLog<Failure>
      log.subscription = subscription
      log.events.append("subscription \(tag.slot)/\(tag.generation)")
    },
    subscribedObjectEntry: { owner, tag, subscription in
      let log = owner as! InnerOwnerLog<Failure>
      log.subscription = subscription
      log.events.append("object subscription \(tag.slot)/\(tag.generation)")
    },
    valueEntry: { owner, tag, value in
      let log = owner as! InnerOwnerLog<Failure>
      log.events.append("value \(value) \(tag.slot)/\(tag.generation)")
      return log.demandPerValue
    },
    completionEntry: { owner, tag, completion in
      let outcome: String
      switch completion {
      case .finished: outcome = "finished"
      case .failure(let error): outcome = "failure \(error)"
      }
      (owner as! InnerOwnerLog<Failure>).events.append("completion \(outcome) \(tag.slot)")
    }
  )

  func subscriber(slot: Int, generation: Int) -> InnerSubscriber<Int, Failure> {
    InnerSubscriber(
      owner: self,
      entries: entries,
      tag: InnerTag(slot: slot, generation: generation)
    )
  }
}

@Suite(.timeLimit(.minutes(5))) struct InnerSubscriberTests {
  @Test func erasedJust_deliversThroughTheBoxsInnerEntry() {
    let owner = InnerOwnerLog<Never>()
    let erased = Just(7).eraseToAnyPublisher()
    erased.receive(subscriber: owner.subscriber(slot: 2, generation: 5))
    // Handed as an object (see `InnerSubscriber.receive(objectSubscription:)`).
    #expect(owner.events == ["object subscription 2/5"])
    owner.subscription?.request(.max(1))
    #expect(
      owner.events == ["object subscription 2/5", "value 7 2/5", "completion finished 2"]
    )
    owner.subscription?.request(.max(1))  // nothing more after the completion
    #expect(owner.events.count == 3)
  }

  @Test func erasedTwice_reusesTheBoxAndItsEntry() {
    let owner = InnerOwnerLog<TestError>()
    let erased = AnyPublisher(Fail<Int, TestError>(error: TestError(code: 3)).eraseToAnyPublisher())
    erased.receive(subscriber: owner.subscriber(slot: 0, generation: 1))
    #expect(owner.events == ["subscription 0/1", "completion failure \(TestError(code: 3)) 0"])
  }

  @Test func erasedSubject_deliversWhatItWasAskedFor() {
    let owner = InnerOwnerLog<TestError>()
    let subject = PassthroughSubject<Int, TestError>()
    subject.eraseToAnyPublisher().receive(subscriber: owner.subscriber(slot: 1, generation: 1))
    owner.subscription?.request(.max(1))
    subject.send(1)
    subject.send(2)  // beyond the demand: dropped by the subject
    owner.demandPerValue = .max(1)
    owner.subscription?.request(.max(1))
    subject.send(3)
    subject.send(4)
    #expect(
      owner.events == ["subscription 1/1", "value 1 1/1", "value 3 1/1", "value 4 1/1"]
    )
    owner.subscription?.cancel()
    subject.send(5)
    #expect(owner.events.count == 4)
  }

  @Test func cancelledJust_sendsNothing() {
    let owner = InnerOwnerLog<Never>()
    Just(1).eraseToAnyPublisher()
      .receive(subscriber: owner.subscriber(slot: 0, generation: 1))
    owner.subscription?.cancel()
    owner.subscription?.request(.unlimited)
    #expect(owner.events == ["object subscription 0/1"])
  }

  @Test func optionalAndResultPublishers_handTheirSubscriptionAsAnObject() {
    let optionalOwner = InnerOwnerLog<Never>()
    Optional.Publisher(4).receive(subscriber: optionalOwner.subscriber(slot: 0, generation: 1))
    optionalOwner.subscription?.request(.max(1))
    #expect(
      optionalOwner.events == ["object subscription 0/1", "value 4 0/1", "completion finished 0"]
    )
    let resultOwner = InnerOwnerLog<TestError>()
    Result<Int, TestError>.Publisher(5)
      .receive(subscriber: resultOwner.subscriber(slot: 1, generation: 2))
    resultOwner.subscription?.request(.max(1))
    #expect(
      resultOwner.events == ["object subscription 1/2", "value 5 1/2", "completion finished 1"]
    )
  }

  @Test func bits_mirrorTheSubscribersFields() {
    let owner = InnerOwnerLog<Never>()
    let subscriber = owner.subscriber(slot: 3, generation: 9)
    #expect(
      MemoryLayout<InnerSubscriber<Int, Never>.Bits>.size
        == MemoryLayout<InnerSubscriber<Int, Never>>.size
    )
    let bits = unsafeBitCast(subscriber, to: InnerSubscriber<Int, Never>.Bits.self)
    #expect(bits.owner == UnsafeRawPointer(Unmanaged.passUnretained(owner).toOpaque()))
    #expect(bits.entries.toOpaque() == Unmanaged.passUnretained(owner.entries).toOpaque())
    #expect(bits.tag == InnerTag(slot: 3, generation: 9))
    #expect(bits.combineIdentifier == subscriber.combineIdentifier)
    bits.receive(
      objectSubscription: SingleValueSubscription<InnerSubscriberSlot<Int, Never>, Int>(
        downstream: subscriber,
        output: 1,
        name: "Probe"
      )
    )
    #expect(owner.events == ["object subscription 3/9"])
  }

  @Test func description_isTheOwnersName() {
    let owner = InnerOwnerLog<Never>()
    #expect(owner.subscriber(slot: 0, generation: 1).description == "Owner")
  }
}
