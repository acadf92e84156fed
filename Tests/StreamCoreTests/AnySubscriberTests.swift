import StreamCore
import Testing

@Suite(.timeLimit(.minutes(5))) struct AnySubscriberTests {
  // MARK: Wrapping a subscriber

  @Test func wrappedSubscriber_receivesSubscriptionValuesAndCompletion() {
    let recorder = Recorder<Int, TestError>()
    let erased = AnySubscriber(recorder)
    let subscription = SpySubscription()
    erased.receive(subscription: subscription)
    _ = erased.receive(1)
    erased.receive(completion: .failure(TestError(code: 2)))
    #expect(
      recorder.events == [
        .subscription(String(describing: subscription)), .value(1),
        .completion(.failure(TestError(code: 2))),
      ]
    )
    #expect(recorder.subscription == nil)
    #expect(subscription.requests == [.unlimited])
  }

  @Test func wrappedSubscriber_returnsItsDemand() {
    let recorder = Recorder<Int, Never>(demandPerValue: { .max($0) })
    let erased = AnySubscriber(recorder)
    erased.receive(subscription: SpySubscription())
    #expect(erased.receive(3) == .max(3))
    #expect(erased.receive(0) == .none)
  }

  @Test func wrappedSubscriber_keepsTheSubscription() {
    let recorder = Recorder<Int, Never>()
    let subscription = SpySubscription()
    AnySubscriber(recorder).receive(subscription: subscription)
    #expect(recorder.subscription?.combineIdentifier == subscription.combineIdentifier)
  }

  @Test func wrappedSubscriber_worksWithAPublisher() {
    let subject = PassthroughSubject<Int, Never>()
    let recorder = Recorder<Int, Never>()
    subject.subscribe(AnySubscriber(recorder))
    subject.send(1)
    subject.send(completion: .finished)
    #expect(
      recorder.events == [.subscription("PassthroughSubject"), .value(1), .completion(.finished)]
    )
  }

  @Test func wrappedSubscriber_keepsItsCombineIdentifier() {
    let recorder = Recorder<Int, Never>()
    #expect(AnySubscriber(recorder).combineIdentifier == recorder.combineIdentifier)
  }

  @Test func wrappingAnAnySubscriber_keepsTheCombineIdentifier() {
    let sink = Subscribers.Sink<Int, Never>(receiveCompletion: { _ in }, receiveValue: { _ in })
    let once = AnySubscriber(sink)
    let twice = AnySubscriber(once)
    #expect(twice.combineIdentifier == sink.combineIdentifier)
    #expect(AnySubscriber(twice).combineIdentifier == sink.combineIdentifier)

    let closures = AnySubscriber<Int, Never>(receiveValue: { _ in .none })
    #expect(AnySubscriber(closures).combineIdentifier == closures.combineIdentifier)
  }

  @Test func wrappingAnAnySubscriber_forwardsEachEventOnce() {
    let recorder = Recorder<Int, Never>(demandPerValue: { _ in .max(1) })
    let twice = AnySubscriber(AnySubscriber(recorder))
    twice.receive(subscription: SpySubscription())
    #expect(twice.receive(7) == .max(1))
    twice.receive(completion: .finished)
    #expect(recorder.values == [7])
    #expect(recorder.completions == [.finished])
  }

  @Test func wrappedSink_describesItselfAsSink() {
    let sink = Subscribers.Sink<Int, Never>(receiveCompletion: { _ in }, receiveValue: { _ in })
    let erased = AnySubscriber(sink)
    #expect(erased.description == "Sink")
    #expect(String(describing: erased) == "Sink")
    #expect(erased.playgroundDescription as? String == "Sink")
    #expect(AnySubscriber(erased).description == "Sink")
  }

  @Test func wrappedSubscriber_mirrorsTheWrapped() {
    let recorder = Recorder<Int, Never>()
    let mirror = AnySubscriber(recorder).customMirror
    #expect(ObjectIdentifier(mirror.subjectType) == ObjectIdentifier(Recorder<Int, Never>.self))
  }

  // MARK: Closures

  @Test func closures_receiveEverything() {
    var subscriptions: [String] = []
    var values: [Int] = []
    var completions: [Subscribers.Completion<TestError>] = []
    let erased = AnySubscriber<Int, TestError>(
      receiveSubscription: { subscriptions.append(String(describing: $0)) },
      receiveValue: {
        values.append($0)
        return .max(2)
      },
      receiveCompletion: { completions.append($0) }
    )
    let subscription = SpySubscription()
    erased.receive(subscription: subscription)
    #expect(erased.receive(1) == .max(2))
    erased.receive(completion: .finished)
    #expect(subscriptions == [String(describing: subscription)])
    #expect(values == [1])
    #expect(completions == [.finished])
  }

  @Test func closures_canRequestThroughTheSubscription() {
    let erased = AnySubscriber<Int, Never>(receiveSubscription: { $0.request(.max(4)) })
    let subscription = SpySubscription()
    erased.receive(subscription: subscription)
    #expect(subscription.requests == [.max(4)])
  }

  @Test func missingClosures_doNothingAndDemandNone() {
    let erased = AnySubscriber<Int, Never>()
    let subscription = SpySubscription()
    erased.receive(subscription: subscription)
    #expect(erased.receive(1) == .none)
    erased.receive(completion: .finished)
    #expect(subscription.requests == [])
    #expect(subscription.cancels == 0)
  }

  @Test func closures_getUniqueCombineIdentifiers() {
    let first = AnySubscriber<Int, Never>()
    let second = AnySubscriber<Int, Never>()
    #expect(first.combineIdentifier != second.combineIdentifier)
  }

  @Test func closures_describeThemselvesAsAnonymous() {
    let erased = AnySubscriber<Int, Never>(receiveValue: { _ in .none })
    #expect(erased.description == "Anonymous AnySubscriber")
    #expect(AnySubscriber(erased).description == "Anonymous AnySubscriber")
  }

  @Test func closures_subscribedToASubject_receiveValues() {
    let subject = PassthroughSubject<Int, Never>()
    var values: [Int] = []
    subject.subscribe(
      AnySubscriber(
        receiveSubscription: { $0.request(.unlimited) },
        receiveValue: {
          values.append($0)
          return .none
        }
      )
    )
    subject.send(1)
    subject.send(2)
    #expect(values == [1, 2])
  }

  // MARK: Subject

  @Test func fromSubject_forwardsValuesAndCompletion() {
    let relay = PassthroughSubject<Int, TestError>()
    let recorder = Recorder<Int, TestError>()
    relay.subscribe(recorder)
    let erased = AnySubscriber(relay)
    erased.receive(subscription: SpySubscription())
    #expect(erased.receive(1) == .none)
    #expect(erased.receive(2) == .none)
    erased.receive(completion: .failure(TestError(code: 3)))
    #expect(
      recorder.events == [
        .subscription("PassthroughSubject"), .value(1), .value(2),
        .completion(.failure(TestError(code: 3))),
      ]
    )
  }

  @Test func fromSubject_isDescribedAsSubject_andTheSubjectGetsASubjectSubscription() {
    // As Combine (OpenCombine's `AnySubscriberTests.testErasingSubject`, `testDescription`,
    // `testReflection`): the subject is fed through the subscriber `subscribe(_:)` uses.
    let relay = PassthroughSubject<Int, Never>()
    let erased = AnySubscriber(relay)
    #expect(erased.description == "Subject")
    #expect(erased.playgroundDescription as? String == "Subject")
    let mirror = Mirror(reflecting: erased)
    #expect(
      String(describing: mirror.subjectType) == "SubjectSubscriber<PassthroughSubject<Int, Never>>"
    )
    #expect(
      mirror.children.map(\.label) == ["downstreamSubject", "upstreamSubscription", "subject"]
    )
  }

  @Test func fromSubject_afterTheCompletion_takesNothing() {
    let relay = PassthroughSubject<Int, Never>()
    let recorder = Recorder<Int, Never>()
    relay.subscribe(recorder)
    let erased = AnySubscriber(relay)
    erased.receive(subscription: SpySubscription())
    erased.receive(completion: .finished)
    #expect(erased.receive(1) == .none)
    #expect(recorder.values.isEmpty)
  }

  @Test func closures_mirrorTheirDescription() {
    // As Combine: a closure-based AnySubscriber reflects as its description, a `String`.
    let mirror = Mirror(reflecting: AnySubscriber<Int, Never>())
    #expect(String(describing: mirror.subjectType) == "String")
    #expect(mirror.children.isEmpty)
  }

  @Test func fromSubject_givesTheSubscriptionToTheSubject() {
    let relay = CurrentValueSubject<Int, Never>(0)
    let subscription = SpySubscription()
    AnySubscriber(relay).receive(subscription: subscription)
    #expect(subscription.requests == [.unlimited])
  }

  @Test func fromSubject_subscribedToAPublisher_relaysItsValues() {
    let source = PassthroughSubject<Int, Never>()
    let relay = CurrentValueSubject<Int, Never>(0)
    let recorder = Recorder<Int, Never>()
    relay.subscribe(recorder)
    source.subscribe(AnySubscriber(relay))
    source.send(1)
    source.send(2)
    #expect(recorder.values == [0, 1, 2])
    #expect(relay.value == 2)
  }
}

// MARK: - Helpers
