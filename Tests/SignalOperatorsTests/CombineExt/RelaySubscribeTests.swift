import Dispatch
import SignalOperators
import StreamCombineExt
import StreamCore
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct RelaySubscribeTests {
  @Test func publisherIntoRelay_valuesPass_completionDoesNotEndTheRelay() {
    let relay = CurrentValueRelay("initial")
    let recorder = RecordingSubscriber<String, Never>()
    relay.subscribe(recorder)
    let token = ["1", "2", "3"].publisher.subscribe(relay)
    #expect(recorder.values == ["initial", "1", "2", "3"])
    relay.accept("4")
    #expect(recorder.values == ["initial", "1", "2", "3", "4"])
    #expect(recorder.completion == nil)
    token.cancel()
  }

  @Test func relaySubscribeToPublisher_isTheSameDirection() {
    let relay = PassthroughRelay<Int>()
    let recorder = RecordingSubscriber<Int, Never>()
    relay.subscribe(recorder)
    let upstream = TestPublisher<Int, Never>()
    let token = relay.subscribe(upstream)
    upstream.send(1)
    upstream.send(completion: .finished)
    relay.accept(2)
    #expect(recorder.values == [1, 2])
    #expect(upstream.requests == [.demand(.unlimited)])
    token.cancel()
  }

  @Test func relayToRelay_valuesFlowFromInputToOutput() {
    let input = CurrentValueRelay("initial")
    let output = CurrentValueRelay("other")
    let token = input.subscribe(output)
    let recorder = RecordingSubscriber<String, Never>()
    output.subscribe(recorder)
    input.accept("1")
    input.accept("2")
    #expect(recorder.values == ["initial", "1", "2"])
    #expect(recorder.completion == nil)
    #expect(output.value == "2")
    token.cancel()
    input.accept("3")
    #expect(output.value == "2")
  }

  @Test func passthroughToCurrentValue_andPublisherSubscribeSpelling() {
    let input = PassthroughRelay<Int>()
    let output = CurrentValueRelay(0)
    let token = input.subscribe(output)
    let recorder = RecordingSubscriber<Int, Never>()
    output.subscribe(recorder)
    input.accept(5)
    #expect(output.value == 5)
    #expect(recorder.values == [0, 5])
    let other = PassthroughRelay<Int>()
    let watcher = RecordingSubscriber<Int, Never>()
    other.subscribe(watcher)
    let second = Just(9).subscribe(other as PassthroughRelay<Int>)
    #expect(watcher.values == [9])
    _ = second
    withExtendedLifetime(token) {}
  }

  /// As a `PassthroughSubject` does with the publishers it is subscribed to (and so CombineExt's
  /// `PassthroughRelay`, a subject inside): it asks for values only once one of its subscribers
  /// has demand; until then a value accepted upstream doesn't reach it. (A `CurrentValueRelay`
  /// asks at once, as its subject does: `passthroughToCurrentValue_…` above.)
  @Test func aPassthroughRelayWithoutDemand_asksItsUpstreamForNothing() {
    let input = CurrentValueRelay(0)
    let output = PassthroughRelay<Int>()
    let token = input.subscribe(output)
    input.accept(5)
    let recorder = RecordingSubscriber<Int, Never>(initialDemand: nil)
    output.subscribe(recorder)
    input.accept(6)
    #expect(recorder.events == [.subscription])
    recorder.request(.max(2))
    #expect(recorder.values == [6])
    input.accept(7)
    #expect(recorder.values == [6, 7])
    token.cancel()
  }

  @Test func cancelToken_cancelsUpstreamAndStopsValues() {
    let relay = PassthroughRelay<Int>()
    let recorder = RecordingSubscriber<Int, Never>()
    relay.subscribe(recorder)
    let upstream = TestPublisher<Int, Never>()
    let token = upstream.subscribe(relay)
    upstream.send(1)
    token.cancel()
    upstream.send(2)
    #expect(recorder.values == [1])
    #expect(upstream.requests == [.demand(.unlimited), .cancel])
  }

  @Test func droppedToken_cancelsUpstream() {
    let relay = PassthroughRelay<Int>()
    let upstream = TestPublisher<Int, Never>()
    relay.subscribe(RecordingSubscriber<Int, Never>())
    do {
      _ = upstream.subscribe(relay)
    }
    #expect(upstream.requests == [.demand(.unlimited), .cancel])
  }

  @Test func upstreamDoesNotKeepTheRelayAlive_andIsCancelledOnceTheRelayIsGone() {
    let upstream = TestPublisher<Int, Never>()
    weak var weakRelay: PassthroughRelay<Int>?
    var token: AnyCancellable?
    do {
      let relay = PassthroughRelay<Int>()
      weakRelay = relay
      token = upstream.subscribe(relay)
    }
    // The relay had no subscriber, so nothing was asked for; its going away cancels at once.
    #expect(weakRelay == nil)
    #expect(upstream.requests == [.cancel])
    upstream.send(1)
    #expect(upstream.requests == [.cancel])
    token?.cancel()
  }

  @Test func completedUpstream_isReleased() {
    final class Probe: Publisher, @unchecked Sendable {
      typealias Output = Int
      typealias Failure = Never
      func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == Never {
        Just(1).subscribe(subscriber)
      }
    }
    let relay = PassthroughRelay<Int>()
    weak var weakUpstream: Probe?
    var token: AnyCancellable?
    do {
      let probe = Probe()
      weakUpstream = probe
      token = relay.subscribe(probe)
    }
    #expect(weakUpstream == nil)
    token?.cancel()
  }

  @Test func concurrentUpstreamsAndSubscribers_loseNothingForUnlimitedSubscribers() {
    let relay = PassthroughRelay<Int>()
    let watchers = (0..<3).map { _ in RecordingSubscriber<Int, Never>() }
    for watcher in watchers { relay.subscribe(watcher) }
    let upstreams = (0..<4).map { _ in PassthroughSubject<Int, Never>() }
    let tokens = upstreams.map { $0.subscribe(relay) }
    DispatchQueue.concurrentPerform(iterations: 6) { index in
      switch index {
      case ..<4:
        for step in 0..<500 {
          if step.isMultiple(of: 2) {
            upstreams[index].send(index * 1_000 + step)
          } else {
            relay.accept(index * 1_000 + step)
          }
        }
      default:
        for _ in 0..<200 {
          let passer = RecordingSubscriber<Int, Never>(initialDemand: .max(1))
          relay.subscribe(passer)
          passer.cancel()
          #expect(passer.values.count <= 1)
        }
      }
    }
    for watcher in watchers {
      let values = watcher.values
      #expect(values.count == 2_000)
      for sender in 0..<4 {
        let own = values.filter { $0 / 1_000 == sender }
        #expect(own == own.sorted())
      }
      #expect(watcher.violations.isEmpty)
    }
    for token in tokens { token.cancel() }
  }
}
