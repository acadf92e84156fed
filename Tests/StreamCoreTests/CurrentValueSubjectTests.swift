import StreamCore
import Testing

@Suite(.timeLimit(.minutes(5))) struct CurrentValueSubjectTests {
  let subject = CurrentValueSubject<Int, TestError>(0)

  @Test func newSubscriber_receivesCurrentValueThenUpdates() {
    let recorder = Recorder<Int, TestError>()
    subject.subscribe(recorder)
    subject.send(1)
    subject.value = 2
    #expect(
      recorder.events == [.subscription("CurrentValueSubject"), .value(0), .value(1), .value(2)]
    )
    #expect(subject.value == 2)
  }

  @Test func noDemand_currentValueWaitsForRequest() {
    let recorder = Recorder<Int, TestError>(initialDemand: nil)
    subject.subscribe(recorder)
    #expect(recorder.values.isEmpty)
    recorder.request(.max(1))
    #expect(recorder.values == [0])
  }

  @Test func noDemand_keepsOnlyLatestValue() {
    let recorder = Recorder<Int, TestError>(initialDemand: .max(1))
    subject.subscribe(recorder)
    subject.send(1)
    subject.send(2)
    subject.send(3)
    recorder.request(.max(5))
    subject.send(4)
    #expect(recorder.values == [0, 3, 4])
  }

  @Test func requestInsideReceiveSubscription_deliversBeforeItReturns() {
    let log = Log()
    let subscriber = AnySubscriber<Int, TestError>(
      receiveSubscription: { subscription in
        subscription.request(.max(1))
        log.append("requested")
      },
      receiveValue: { value in
        log.append("value \(value)")
        return .none
      }
    )
    subject.subscribe(subscriber)
    #expect(log.entries == ["value 0", "requested"])
  }

  @Test func afterCompletion_valueUpdatesButNothingIsSent() {
    let recorder = Recorder<Int, TestError>()
    subject.subscribe(recorder)
    subject.send(completion: .finished)
    subject.value = 5
    #expect(subject.value == 5)
    #expect(
      recorder.events == [.subscription("CurrentValueSubject"), .value(0), .completion(.finished)]
    )
  }

  @Test func lateSubscriber_receivesCompletionOnly() {
    subject.send(completion: .failure(TestError()))
    let recorder = Recorder<Int, TestError>()
    subject.subscribe(recorder)
    #expect(recorder.events == [.subscription("Empty"), .completion(.failure(TestError()))])
  }

  @Test func setFromInsideReceive_isDeliveredReentrantly() {
    let log = Log()
    let subject = self.subject
    let recorder = Recorder<Int, TestError>(onValue: { _, value in
      log.append("begin \(value)")
      if value == 1 { subject.value = 2 }
      log.append("end \(value)")
    })
    subject.subscribe(recorder)
    subject.value = 1
    #expect(log.entries == ["begin 0", "end 0", "begin 1", "begin 2", "end 2", "end 1"])
    #expect(subject.value == 2)
  }

  @Test func cancel_stopsDeliveryAndReleases() {
    weak var weakSubscription: AnyObject?
    do {
      let holder = WeakHolder<Int, TestError>()
      subject.subscribe(holder)
      weakSubscription = holder.subscription
      holder.cancelAndRelease()
    }
    #expect(weakSubscription == nil)
  }

  @Test func optionalOutput_nilIsAValue() {
    let optional = CurrentValueSubject<Int?, Never>(nil)
    let recorder = Recorder<Int?, Never>()
    optional.subscribe(recorder)
    optional.value = 1
    optional.value = nil
    #expect(recorder.values == [nil, 1, nil])
  }

  @Test func sink_seesEveryChange() {
    var seen: [Int] = []
    let token = subject.sink(receiveCompletion: { _ in }, receiveValue: { seen.append($0) })
    subject.value = 1
    subject.value = 1
    token.cancel()
    subject.value = 2
    #expect(seen == [0, 1, 1])
  }

  @Test func cancelledSubscription_mirrorKeepsTheDemandItHad() throws {
    // As Combine's (OpenCombine's `CurrentValueSubjectTests.testCancellation`, run against
    // Combine): the ended subscription's mirror shows its released parts as nil and the demand
    // it had when cancelled; requests after the cancel add nothing.
    let recorder = Recorder<Int, TestError>(initialDemand: nil)
    subject.subscribe(recorder)
    let subscription = try #require(recorder.subscription)
    subject.send(1)
    subscription.request(.max(1))
    subscription.request(.max(3))
    subscription.cancel()
    subscription.request(.max(4))
    #expect(recorder.values == [1])
    let ended = Mirror(reflecting: subscription).children.map { "\($0.label ?? "_"): \($0.value)" }
    #expect(ended == ["parent: nil", "downstream: nil", "demand: max(3)", "subject: nil"])
  }

  /// A replaced value whose deinit sends: that value goes down after the one that replaced it,
  /// so the subscribers end on the subject's current value. (Released before the delivery, it
  /// went down first, and the subscribers ended on the older value.)
  @Test func replacedValueWhoseDeinitSends_isDeliveredAfterItsReplacement() {
    final class Box: Sendable {
      let id: Int
      let onDeinit: (@Sendable () -> Void)?
      init(_ id: Int, onDeinit: (@Sendable () -> Void)? = nil) {
        self.id = id
        self.onDeinit = onDeinit
      }
      deinit { onDeinit?() }
    }
    // Sendable: used on this thread only.
    final class Holder: @unchecked Sendable {
      var subject: CurrentValueSubject<Box, Never>?
    }
    let holder = Holder()
    let subject = CurrentValueSubject<Box, Never>(Box(0) { holder.subject?.send(Box(99)) })
    holder.subject = subject
    var received: [Int] = []
    let cancellable = subject.sink { received.append($0.id) }
    subject.send(Box(1))
    #expect(received == [0, 1, 99])
    #expect(subject.value.id == 99)
    holder.subject = nil
    cancellable.cancel()
  }
}
