import StreamCore
import Testing

@Suite(.timeLimit(.minutes(5))) struct AnyPublisherTests {
  @Test func erasedSubject_forwardsSubscriptionValuesAndCompletion() {
    let subject = PassthroughSubject<Int, TestError>()
    let recorder = Recorder<Int, TestError>()
    subject.eraseToAnyPublisher().subscribe(recorder)
    subject.send(1)
    subject.send(2)
    subject.send(completion: .failure(TestError(code: 5)))
    #expect(
      recorder.events == [
        .subscription("PassthroughSubject"), .value(1), .value(2),
        .completion(.failure(TestError(code: 5))),
      ]
    )
  }

  @Test func erasedSubject_respectsTheSubscribersDemand() {
    let subject = PassthroughSubject<Int, Never>()
    let recorder = Recorder<Int, Never>(initialDemand: .max(1))
    AnyPublisher(subject).subscribe(recorder)
    subject.send(1)
    subject.send(2)
    recorder.request(.max(1))
    subject.send(3)
    #expect(recorder.values == [1, 3])
  }

  @Test func erasedPublisher_passesTheUpstreamSubscriptionThrough() {
    let publisher = SpyPublisher<Int, Never>()
    let recorder = Recorder<Int, Never>(initialDemand: .max(2))
    publisher.eraseToAnyPublisher().subscribe(recorder)
    #expect(
      recorder.subscription?.combineIdentifier == publisher.subscription.combineIdentifier
    )
    recorder.request(.max(3))
    recorder.cancel()
    #expect(publisher.subscription.requests == [.max(2), .max(3)])
    #expect(publisher.subscription.cancels == 1)
  }

  @Test func erasedPublisher_forwardsTheSubscriberItself() {
    let publisher = SpyPublisher<Int, Never>()
    let recorder = Recorder<Int, Never>()
    publisher.eraseToAnyPublisher().subscribe(recorder)
    #expect(publisher.subscribers.count == 1)
    #expect(publisher.subscribers.first === recorder)
  }

  @Test func erasedCancelledSubscription_stopsValues() {
    let subject = PassthroughSubject<Int, Never>()
    let recorder = Recorder<Int, Never>()
    subject.eraseToAnyPublisher().subscribe(recorder)
    subject.send(1)
    recorder.cancel()
    subject.send(2)
    #expect(recorder.values == [1])
  }

  @Test func erasedCurrentValueSubject_sendsTheCurrentValue() {
    let subject = CurrentValueSubject<String, Never>("a")
    let recorder = Recorder<String, Never>()
    subject.eraseToAnyPublisher().subscribe(recorder)
    subject.send("b")
    #expect(recorder.values == ["a", "b"])
  }

  @Test func erasingAnAnyPublisher_reusesItsBox() throws {
    let erased = PassthroughSubject<Int, Never>().eraseToAnyPublisher()
    let original = try boxIdentity(of: erased)
    #expect(try boxIdentity(of: AnyPublisher(erased)) == original)
    #expect(try boxIdentity(of: erased.eraseToAnyPublisher()) == original)
    #expect(try boxIdentity(of: AnyPublisher(AnyPublisher(erased))) == original)
  }

  @Test func erasingTwice_deliversEachValueOnce() {
    let subject = PassthroughSubject<Int, Never>()
    let recorder = Recorder<Int, Never>()
    subject.eraseToAnyPublisher().eraseToAnyPublisher().subscribe(recorder)
    subject.send(1)
    #expect(recorder.events == [.subscription("PassthroughSubject"), .value(1)])
  }

  @Test func description_isAnyPublisher() {
    let erased = PassthroughSubject<Int, Never>().eraseToAnyPublisher()
    #expect(erased.description == "AnyPublisher")
    #expect(String(describing: erased) == "AnyPublisher")
    #expect(erased.playgroundDescription as? String == "AnyPublisher")
  }

  /// The identity of the box an ``AnyPublisher`` stores, read through reflection.
  private func boxIdentity(of publisher: AnyPublisher<Int, Never>) throws -> ObjectIdentifier {
    let box = try #require(Mirror(reflecting: publisher).descendant("box"))
    return ObjectIdentifier(box as AnyObject)
  }
}

// MARK: - Helpers

/// A publisher that hands every subscriber the same ``SpySubscription`` and keeps the
/// subscribers (as objects) it was given.
private final class SpyPublisher<Output, Failure: Error>: Publisher {
  let subscription = SpySubscription()
  private(set) var subscribers: [AnyObject] = []

  func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
    subscribers.append(subscriber as AnyObject)
    subscriber.receive(subscription: subscription)
  }
}
