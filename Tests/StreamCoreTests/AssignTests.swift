import StreamCore
import Testing

@Suite(.timeLimit(.minutes(5))) struct AssignTests {
  // MARK: assign(to:on:)

  @Test func assignOnSubject_assignsEachValue() {
    let subject = PassthroughSubject<Int, Never>()
    let model = Model()
    let token = subject.assign(to: \.value, on: model)
    subject.send(1)
    subject.send(2)
    withExtendedLifetime(token) {
      #expect(model.history == [1, 2])
      #expect(model.value == 2)
    }
  }

  @Test func assignOnCurrentValueSubject_assignsTheCurrentValueFirst() {
    let subject = CurrentValueSubject<Int, Never>(5)
    let model = Model()
    let token = subject.assign(to: \.value, on: model)
    subject.value = 6
    withExtendedLifetime(token) {
      #expect(model.history == [5, 6])
    }
  }

  @Test func cancelledToken_stopsAssigning() {
    let subject = PassthroughSubject<Int, Never>()
    let model = Model()
    let token = subject.assign(to: \.value, on: model)
    subject.send(1)
    token.cancel()
    subject.send(2)
    #expect(model.history == [1])
  }

  @Test func tokenDeinit_releasesTheObject() {
    let subject = PassthroughSubject<Int, Never>()
    weak var weakModel: Model?
    do {
      let model = Model()
      weakModel = model
      let token = subject.assign(to: \.value, on: model)
      withExtendedLifetime(token) {}
    }
    #expect(weakModel == nil)
  }

  /// The usual way to break an `assign(to:on:)` retain cycle: the object owns its token and the
  /// completion releases it. Releasing the object must not re-enter the `Assign` under its lock.
  /// Runs in a child process, because a recursive lock crashes.
  @Test func completion_releasesAnObjectThatOwnsItsToken() async {
    await #expect(processExitsWith: .success) {
      let subject = PassthroughSubject<Int, Never>()
      weak var weakOwner: Owner?
      do {
        let owner = Owner()
        weakOwner = owner
        owner.token = subject.assign(to: \.value, on: owner)
      }
      subject.send(1)
      precondition(weakOwner?.value == 1)
      subject.send(completion: .finished)
      precondition(weakOwner == nil)
    }
  }

  // MARK: Subscribers.Assign

  @Test func mirror_showsObjectKeyPathAndStatus() {
    // As Combine (OpenCombine's `AssignTests.testReflection`).
    let subject = CurrentValueSubject<Int, Never>(0)
    let assign = Subscribers.Assign(object: subject, keyPath: \.value)
    let children = Array(assign.customMirror.children)
    #expect(children.map(\.label) == ["object", "keyPath", "status"])
    #expect(children.first?.value as? CurrentValueSubject<Int, Never> === subject)
    #expect(String(describing: children[2].value) == "awaitingSubscription")
    assign.receive(completion: .finished)
    #expect(
      Array(assign.customMirror.children).last.map { String(describing: $0.value) } == "terminal"
    )
  }

  @Test func receiveSubscription_requestsUnlimited() {
    let assign = Subscribers.Assign(object: Model(), keyPath: \.value)
    let subscription = SpySubscription()
    assign.receive(subscription: subscription)
    #expect(subscription.requests == [.unlimited])
    #expect(subscription.cancels == 0)
  }

  @Test func receiveValue_assignsAndReturnsNone() {
    let model = Model()
    let assign = Subscribers.Assign(object: model, keyPath: \.value)
    assign.receive(subscription: SpySubscription())
    #expect(assign.receive(3) == .none)
    #expect(assign.receive(4) == .none)
    #expect(model.history == [3, 4])
  }

  @Test func secondSubscription_isCancelled() {
    let assign = Subscribers.Assign(object: Model(), keyPath: \.value)
    let first = SpySubscription()
    let second = SpySubscription()
    assign.receive(subscription: first)
    assign.receive(subscription: second)
    #expect(second.requests == [])
    #expect(second.cancels == 1)
    #expect(first.cancels == 0)
  }

  @Test func cancelTwice_cancelsUpstreamOnce() {
    let assign = Subscribers.Assign(object: Model(), keyPath: \.value)
    let subscription = SpySubscription()
    assign.receive(subscription: subscription)
    assign.cancel()
    assign.cancel()
    #expect(subscription.cancels == 1)
  }

  @Test func cancelAfterCompletion_doesNotCancelUpstream() {
    let assign = Subscribers.Assign(object: Model(), keyPath: \.value)
    let subscription = SpySubscription()
    assign.receive(subscription: subscription)
    assign.receive(completion: .finished)
    assign.cancel()
    #expect(subscription.cancels == 0)
  }

  @Test func valueAfterCompletion_isNotAssigned() {
    let model = Model()
    let assign = Subscribers.Assign(object: model, keyPath: \.value)
    assign.receive(subscription: SpySubscription())
    assign.receive(completion: .finished)
    #expect(assign.receive(1) == .none)
    #expect(model.history == [])
  }

  @Test func completion_releasesTheObject() {
    weak var weakModel: Model?
    let assign: Subscribers.Assign<Model, Int>
    do {
      let model = Model()
      weakModel = model
      assign = Subscribers.Assign(object: model, keyPath: \.value)
    }
    assign.receive(subscription: SpySubscription())
    #expect(weakModel != nil)
    #expect(assign.object != nil)
    assign.receive(completion: .finished)
    #expect(weakModel == nil)
    #expect(assign.object == nil)
  }

  @Test func cancel_releasesTheObject() {
    weak var weakModel: Model?
    let assign: Subscribers.Assign<Model, Int>
    do {
      let model = Model()
      weakModel = model
      assign = Subscribers.Assign(object: model, keyPath: \.value)
    }
    assign.receive(subscription: SpySubscription())
    #expect(weakModel != nil)
    assign.cancel()
    #expect(weakModel == nil)
    #expect(assign.object == nil)
  }

  @Test func properties_exposeObjectAndKeyPath() {
    let model = Model()
    let assign = Subscribers.Assign(object: model, keyPath: \.value)
    #expect(assign.object === model)
    #expect(assign.keyPath == \Model.value)
  }

  @Test func description_namesTheRootType() {
    let assign = Subscribers.Assign(object: Model(), keyPath: \.value)
    #expect(assign.description == "Assign Model.")
    #expect(String(describing: assign) == "Assign Model.")
    #expect(assign.playgroundDescription as? String == "Assign Model.")
  }
}

// MARK: - Helpers

/// An object whose property is assigned; records every assignment.
private final class Model {
  var history: [Int] = []
  var value = 0 {
    didSet { history.append(value) }
  }
}

/// An object that keeps the token of the subscription assigning to it.
private final class Owner {
  var value = 0
  var token: AnyCancellable?
}
