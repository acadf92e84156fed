import StreamCore
import Testing

@Suite(.timeLimit(.minutes(5))) struct SinkTests {
  // MARK: Subscribers.Sink

  @Test func receiveSubscription_requestsUnlimited() {
    let sink = Subscribers.Sink<Int, Never>(receiveCompletion: { _ in }, receiveValue: { _ in })
    let subscription = SpySubscription()
    sink.receive(subscription: subscription)
    #expect(subscription.requests == [.unlimited])
    #expect(subscription.cancels == 0)
  }

  @Test func receiveValue_callsTheClosureAndReturnsNone() {
    var values: [Int] = []
    let sink = Subscribers.Sink<Int, Never>(
      receiveCompletion: { _ in },
      receiveValue: { values.append($0) }
    )
    sink.receive(subscription: SpySubscription())
    #expect(sink.receive(1) == .none)
    #expect(sink.receive(2) == .none)
    #expect(values == [1, 2])
  }

  @Test func receiveCompletion_callsTheClosureOnce() {
    var completions: [Subscribers.Completion<TestError>] = []
    let sink = Subscribers.Sink<Int, TestError>(
      receiveCompletion: { completions.append($0) },
      receiveValue: { _ in }
    )
    sink.receive(subscription: SpySubscription())
    sink.receive(completion: .failure(TestError(code: 4)))
    sink.receive(completion: .finished)
    #expect(completions == [.failure(TestError(code: 4))])
  }

  @Test func secondSubscription_isCancelledAndTheFirstKept() {
    let sink = Subscribers.Sink<Int, Never>(receiveCompletion: { _ in }, receiveValue: { _ in })
    let first = SpySubscription()
    let second = SpySubscription()
    sink.receive(subscription: first)
    sink.receive(subscription: second)
    #expect(second.requests == [])
    #expect(second.cancels == 1)
    #expect(first.cancels == 0)
    sink.cancel()
    #expect(first.cancels == 1)
  }

  @Test func cancelTwice_cancelsUpstreamOnce() {
    let sink = Subscribers.Sink<Int, Never>(receiveCompletion: { _ in }, receiveValue: { _ in })
    let subscription = SpySubscription()
    sink.receive(subscription: subscription)
    sink.cancel()
    sink.cancel()
    #expect(subscription.cancels == 1)
  }

  @Test func cancelBeforeSubscription_cancelsTheLaterSubscription() {
    let sink = Subscribers.Sink<Int, Never>(receiveCompletion: { _ in }, receiveValue: { _ in })
    sink.cancel()
    let subscription = SpySubscription()
    sink.receive(subscription: subscription)
    #expect(subscription.requests == [])
    #expect(subscription.cancels == 1)
  }

  @Test func completionAfterCancel_isIgnored() {
    var completions: [Subscribers.Completion<Never>] = []
    let sink = Subscribers.Sink<Int, Never>(
      receiveCompletion: { completions.append($0) },
      receiveValue: { _ in }
    )
    sink.receive(subscription: SpySubscription())
    sink.cancel()
    sink.receive(completion: .finished)
    #expect(completions.isEmpty)
  }

  @Test func cancelAfterCompletion_doesNotCancelUpstream() {
    let sink = Subscribers.Sink<Int, Never>(receiveCompletion: { _ in }, receiveValue: { _ in })
    let subscription = SpySubscription()
    sink.receive(subscription: subscription)
    sink.receive(completion: .finished)
    sink.cancel()
    #expect(subscription.cancels == 0)
  }

  @Test func completion_releasesTheSubscription() {
    weak var weakSubscription: SpySubscription?
    let sink = Subscribers.Sink<Int, Never>(receiveCompletion: { _ in }, receiveValue: { _ in })
    do {
      let subscription = SpySubscription()
      weakSubscription = subscription
      sink.receive(subscription: subscription)
    }
    #expect(weakSubscription != nil)
    sink.receive(completion: .finished)
    #expect(weakSubscription == nil)
  }

  @Test func cancel_releasesTheSubscription() {
    weak var weakSubscription: SpySubscription?
    let sink = Subscribers.Sink<Int, Never>(receiveCompletion: { _ in }, receiveValue: { _ in })
    do {
      let subscription = SpySubscription()
      weakSubscription = subscription
      sink.receive(subscription: subscription)
    }
    #expect(weakSubscription != nil)
    sink.cancel()
    #expect(weakSubscription == nil)
  }

  @Test func valuesAfterTheCompletion_areIgnored() {
    var values: [Int] = []
    let sink = Subscribers.Sink<Int, Never>(
      receiveCompletion: { _ in },
      receiveValue: { values.append($0) }
    )
    #expect(sink.receive(1) == .none)  // before the subscription: delivered, as in Combine
    sink.receive(subscription: SpySubscription())
    _ = sink.receive(2)
    sink.receive(completion: .finished)
    #expect(sink.receive(3) == .none)
    #expect(values == [1, 2])
  }

  @Test(arguments: [true, false])
  func completion_letsGoOfTheClosures(subscribed: Bool) {
    let tokens = ClosureTokens()
    let sink = tokens.sink()
    if subscribed { sink.receive(subscription: SpySubscription()) }
    #expect(tokens.alive)
    sink.receive(completion: .failure(TestError(code: 1)))
    withExtendedLifetime(sink) { #expect(!tokens.alive) }
  }

  @Test func cancelAfterTheSubscription_letsGoOfTheClosures() {
    let tokens = ClosureTokens()
    let sink = tokens.sink()
    sink.receive(subscription: SpySubscription())
    sink.cancel()
    withExtendedLifetime(sink) { #expect(!tokens.alive) }
  }

  @Test func cancelBeforeTheSubscription_keepsTheClosures_asCombineDoes() {
    let tokens = ClosureTokens()
    let sink = tokens.sink()
    sink.cancel()
    withExtendedLifetime(sink) { #expect(tokens.alive) }
  }

  @Test func ownerThatKeepsItsSink_isReleasedOnceTheStreamFinished() {
    let subject = PassthroughSubject<Int, Never>()
    weak var released: SinkOwner?
    do {
      let owner = SinkOwner(subject)
      released = owner
    }
    #expect(released != nil)  // the owner keeps the sink, whose closure keeps the owner
    subject.send(completion: .finished)
    #expect(released == nil)
  }

  @Test func description_isSink() {
    let sink = Subscribers.Sink<Int, Never>(receiveCompletion: { _ in }, receiveValue: { _ in })
    #expect(sink.description == "Sink")
    #expect(String(describing: sink) == "Sink")
    #expect(sink.playgroundDescription as? String == "Sink")
    #expect(sink.customMirror.children.isEmpty)
  }

  // MARK: sink(receiveCompletion:receiveValue:) and sink(receiveValue:)

  @Test func sinkOnSubject_forwardsValuesThenCompletion() {
    let subject = PassthroughSubject<Int, TestError>()
    var values: [Int] = []
    var completions: [Subscribers.Completion<TestError>] = []
    let token = subject.sink(
      receiveCompletion: { completions.append($0) },
      receiveValue: { values.append($0) }
    )
    subject.send(1)
    subject.send(2)
    subject.send(completion: .failure(TestError(code: 9)))
    subject.send(3)
    withExtendedLifetime(token) {
      #expect(values == [1, 2])
      #expect(completions == [.failure(TestError(code: 9))])
    }
  }

  @Test func sinkReceiveValue_forwardsValues() {
    let subject = CurrentValueSubject<Int, Never>(0)
    var values: [Int] = []
    let token = subject.sink { values.append($0) }
    subject.send(1)
    subject.value = 2
    withExtendedLifetime(token) {
      #expect(values == [0, 1, 2])
    }
  }

  @Test func sink_requestsUnlimitedFromThePublisher() {
    let publisher = SpyPublisher<Int, Never>()
    let token = publisher.sink { _ in }
    withExtendedLifetime(token) {
      #expect(publisher.subscription.requests == [.unlimited])
    }
  }

  @Test func returnedCancellable_cancelsUpstreamOnce() {
    let publisher = SpyPublisher<Int, Never>()
    let token = publisher.sink { _ in }
    token.cancel()
    token.cancel()
    #expect(publisher.subscription.cancels == 1)
  }

  @Test func returnedCancellableDeinit_cancelsUpstream() {
    let publisher = SpyPublisher<Int, Never>()
    do {
      let token = publisher.sink { _ in }
      withExtendedLifetime(token) {
        #expect(publisher.subscription.cancels == 0)
      }
    }
    #expect(publisher.subscription.cancels == 1)
  }

  @Test func returnedCancellableDeinit_stopsValuesFromASubject() {
    let subject = PassthroughSubject<Int, Never>()
    var values: [Int] = []
    do {
      let token = subject.sink { values.append($0) }
      subject.send(1)
      withExtendedLifetime(token) {}
    }
    subject.send(2)
    #expect(values == [1])
  }
}

// MARK: - Helpers

/// A publisher that hands every subscriber the same ``SpySubscription``.
private final class SpyPublisher<Output, Failure: Error>: Publisher {
  let subscription = SpySubscription()

  func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
    subscriber.receive(subscription: subscription)
  }
}

/// Two objects captured by a sink's two closures, to see when the sink lets go of them.
private final class ClosureTokens {
  private weak var valueToken: ReleaseProbe?
  private weak var completionToken: ReleaseProbe?

  /// Whether either captured object is still alive.
  var alive: Bool { valueToken != nil || completionToken != nil }

  /// A sink whose closures capture the tokens (and nothing else keeps them).
  func sink() -> Subscribers.Sink<Int, TestError> {
    let value = ReleaseProbe()
    let completion = ReleaseProbe()
    valueToken = value
    completionToken = completion
    return Subscribers.Sink(
      receiveCompletion: { _ in withExtendedLifetime(completion) {} },
      receiveValue: { _ in withExtendedLifetime(value) {} }
    )
  }
}

/// An object captured by a closure.
private final class ReleaseProbe {}

/// Keeps the cancellable of a sink whose closure captures it: the cycle app code writes.
private final class SinkOwner {
  private var cancellable: AnyCancellable?
  private var last = 0

  init(_ subject: PassthroughSubject<Int, Never>) {
    cancellable = subject.sink { self.last = $0 }
  }
}
