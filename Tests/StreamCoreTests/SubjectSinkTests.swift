import StreamCore
import Testing

/// The subjects' own `sink` overloads, which attach the closures without a `Subscribers.Sink`:
/// they must behave exactly as `Publisher`'s `sink`.
@Suite(.timeLimit(.minutes(5))) struct SubjectSinkTests {
  /// Collects what the closures receive; a class so that closures can share it.
  final class Log: @unchecked Sendable {
    var events: [String] = []
  }

  @Test func passthrough_deliversValuesThenCompletion() {
    let subject = PassthroughSubject<Int, TestError>()
    let log = Log()
    let token = subject.sink(
      receiveCompletion: { log.events.append("completion \($0)") },
      receiveValue: { log.events.append("value \($0)") }
    )
    subject.send(1)
    subject.send(2)
    subject.send(completion: .failure(TestError()))
    subject.send(3)
    #expect(
      log.events == [
        "value 1", "value 2",
        "completion \(Subscribers.Completion<TestError>.failure(TestError()))",
      ]
    )
    withExtendedLifetime(token) {}
  }

  @Test func cancel_stopsDeliveryAtOnce() {
    let subject = PassthroughSubject<Int, Never>()
    let log = Log()
    let token = subject.sink { log.events.append("value \($0)") }
    subject.send(1)
    token.cancel()
    subject.send(2)
    subject.send(completion: .finished)
    #expect(log.events == ["value 1"])
  }

  @Test func droppingTheToken_cancelsAndReleasesTheClosures() {
    let subject = PassthroughSubject<Int, Never>()
    weak var weakLog: Log?
    do {
      let log = Log()
      weakLog = log
      let token = subject.sink { log.events.append("value \($0)") }
      subject.send(1)
      #expect(log.events == ["value 1"])
      withExtendedLifetime(token) {}
    }
    subject.send(2)
    #expect(weakLog == nil)
  }

  @Test func afterCompletion_receivesTheCompletionAtOnce() {
    let subject = PassthroughSubject<Int, Never>()
    subject.send(completion: .finished)
    let log = Log()
    let token = subject.sink(
      receiveCompletion: { log.events.append("completion \($0)") },
      receiveValue: { log.events.append("value \($0)") }
    )
    subject.send(1)
    token.cancel()  // harmless
    #expect(log.events == ["completion finished"])
  }

  @Test func reentrantSend_isDeliveredInsideTheOuterDelivery() {
    let subject = PassthroughSubject<Int, Never>()
    let log = Log()
    let token = subject.sink { value in
      log.events.append("start \(value)")
      if value == 1 { subject.send(2) }
      log.events.append("end \(value)")
    }
    subject.send(1)
    #expect(log.events == ["start 1", "start 2", "end 2", "end 1"])
    withExtendedLifetime(token) {}
  }

  @Test func currentValue_deliversTheCurrentValueFirst() {
    let subject = CurrentValueSubject<Int, Never>(7)
    let log = Log()
    let token = subject.sink { log.events.append("value \($0)") }
    subject.value = 8
    subject.send(completion: .finished)
    #expect(log.events == ["value 7", "value 8"])
    withExtendedLifetime(token) {}
  }

  @Test func currentValue_cancelFromInsideTheClosure_stopsLaterValues() {
    let subject = CurrentValueSubject<Int, Never>(0)
    let log = Log()
    nonisolated(unsafe) var token: AnyCancellable?
    token = subject.sink { value in
      log.events.append("value \(value)")
      if value == 1 { token?.cancel() }
    }
    subject.value = 1
    subject.value = 2
    #expect(log.events == ["value 0", "value 1"])
    token = nil
  }
}
