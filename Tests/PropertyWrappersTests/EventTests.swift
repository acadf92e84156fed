import Dispatch
import PropertyWrappers
import StreamCore
import StreamShuttle
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct EventTests {
  private final class Combobulator {
    @Event var refreshEvent
    @Event<String> var flubberBatchName
    @Event var explicit: ObservableEvent<Int>
    @EventStream(value: 0) var flubberCount
    @EventStream<String?>(value: nil) var lastError
  }

  private func requireSendable<T: Sendable>(_: T.Type) {}

  @Test func bareEvent_isAVoidPassthroughSubject() {
    let combobulator = Combobulator()
    let refresh: AnonymousEvent = combobulator.refreshEvent
    let recorder = RecordingSubscriber<Void, Never>()
    refresh.subscribe(recorder)
    combobulator.refreshEvent.send()
    combobulator.refreshEvent.send()
    #expect(recorder.values.count == 2)
  }

  @Test func typedEvent_sendsToASink() {
    let combobulator = Combobulator()
    let name: PassthroughSubject<String, Never> = combobulator.flubberBatchName
    var received: [String] = []
    let cancellable = name.sink { received.append($0) }
    combobulator.flubberBatchName.send("B-12")
    combobulator.flubberBatchName.send("B-13")
    #expect(received == ["B-12", "B-13"])
    cancellable.cancel()
  }

  @Test func eventWithATypeAnnotation_usesTheAnnotatedType() {
    let combobulator = Combobulator()
    let recorder = RecordingSubscriber<Int, Never>()
    combobulator.explicit.subscribe(recorder)
    combobulator.explicit.send(7)
    #expect(recorder.events == [.subscription, .value(7)])
  }

  @Test func event_deliversNothingUntilSent() {
    let combobulator = Combobulator()
    combobulator.flubberBatchName.send("before")
    let recorder = RecordingSubscriber<String, Never>()
    combobulator.flubberBatchName.subscribe(recorder)
    #expect(recorder.events == [.subscription])
    combobulator.flubberBatchName.send("after")
    #expect(recorder.events == [.subscription, .value("after")])
  }

  @Test func eachOwner_getsItsOwnSubject() {
    let first = Combobulator()
    let second = Combobulator()
    #expect(first.flubberBatchName !== second.flubberBatchName)
    #expect(first.flubberCount !== second.flubberCount)
  }

  @Test func event_canBeReplacedAndOldSubscribersStayWithTheOldSubject() {
    let combobulator = Combobulator()
    let old = RecordingSubscriber<String, Never>()
    combobulator.flubberBatchName.subscribe(old)
    combobulator.flubberBatchName = ObservableEvent<String>()
    let new = RecordingSubscriber<String, Never>()
    combobulator.flubberBatchName.subscribe(new)
    combobulator.flubberBatchName.send("x")
    #expect(old.events == [.subscription])
    #expect(new.events == [.subscription, .value("x")])
  }

  @Test func stream_isACurrentValueSubjectSeededWithTheValue() {
    let combobulator = Combobulator()
    let count: CurrentValueSubject<Int, Never> = combobulator.flubberCount
    #expect(count.value == 0)
    let error: ObservableStream<String?> = combobulator.lastError
    #expect(error.value == nil)
  }

  @Test func stream_deliversItsCurrentValueToEachNewSubscriber() {
    let combobulator = Combobulator()
    combobulator.flubberCount.value = 3
    let first = RecordingSubscriber<Int, Never>()
    combobulator.flubberCount.subscribe(first)
    #expect(first.events == [.subscription, .value(3)])
    combobulator.flubberCount.send(4)
    let second = RecordingSubscriber<Int, Never>()
    combobulator.flubberCount.subscribe(second)
    #expect(first.events == [.subscription, .value(3), .value(4)])
    #expect(second.events == [.subscription, .value(4)])
  }

  @Test func stream_valueAndSend_bothUpdateAndPublish() {
    let combobulator = Combobulator()
    var received: [Int] = []
    let cancellable = combobulator.flubberCount.sink { received.append($0) }
    combobulator.flubberCount.value = 12
    combobulator.flubberCount.send(13)
    #expect(received == [0, 12, 13])
    #expect(combobulator.flubberCount.value == 13)
    cancellable.cancel()
  }

  @Test func wrappers_areSendable() {
    requireSendable(Event<String>.self)
    requireSendable(Event<Void>.self)
    requireSendable(EventStream<Int>.self)
    requireSendable(AnonymousEvent.self)
    requireSendable(ObservableStream<[Int]>.self)
  }

  @Test func concurrentSends_areAllDelivered() {
    let combobulator = Combobulator()
    let recorder = RecordingSubscriber<Int, Never>()
    combobulator.explicit.subscribe(recorder)
    let event = combobulator.explicit
    DispatchQueue.concurrentPerform(iterations: 1_000) { event.send($0) }
    #expect(recorder.values.count == 1_000)
    #expect(recorder.violations.isEmpty)
  }

  @Test func mainActorOwner_sendsFromAnotherTask() async {
    let model = MainActorModel()
    let name = await model.name
    let recorder = RecordingSubscriber<String, Never>()
    name.subscribe(recorder)
    await Task.detached { name.send("from a detached task") }.value
    #expect(recorder.values == ["from a detached task"])
  }
}

@MainActor private final class MainActorModel {
  @Event<String> var name
  @EventStream(value: 0) var count
}
