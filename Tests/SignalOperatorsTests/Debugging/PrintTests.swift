import SignalOperators
import StreamCore
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct PrintTests {
  @Test func subscription_reflectsNoChildren() {
    // As Combine: the subscription's mirror shows no children (not the lock or the state).
    let recorder = RecordingSubscriber<Int, TestError>()
    upstream.print(to: output).subscribe(recorder)
    let children = recorder.subscription.map { Mirror(reflecting: $0).children.count }
    #expect(children == 0)
  }

  let upstream = TestPublisher<Int, TestError>()
  private let output = PrintRecording()

  @Test func basicPath_writesCombinesLines() {
    let recorder = RecordingSubscriber<Int, TestError>()
    upstream.print(to: output).subscribe(recorder)
    upstream.send(1)
    upstream.send(2)
    upstream.send(completion: .finished)
    #expect(
      output.lines == [
        "receive subscription: (TestPublisher)",
        "request unlimited",
        "receive value: (1)",
        "receive value: (2)",
        "receive finished",
      ]
    )
    #expect(recorder.events == [.subscription, .value(1), .value(2), .completion(.finished)])
  }

  @Test func prefix_startsEachLine() {
    let recorder = RecordingSubscriber<Int, TestError>(initialDemand: .max(3))
    upstream.print("numbers", to: output).subscribe(recorder)
    upstream.send(completion: .failure(TestError()))
    #expect(
      output.lines == [
        "numbers: receive subscription: (TestPublisher)",
        "numbers: request max: (3)",
        "numbers: receive error: (Boom)",
      ]
    )
  }

  @Test func sequenceUpstream_describesTheSequence() {
    let recorder = RecordingSubscriber<Int, Never>()
    [1, 2].publisher.print("seq", to: output).subscribe(recorder)
    #expect(output.lines.first == "seq: receive subscription: ([1, 2])")
    #expect(output.lines.last == "seq: receive finished")
    #expect(recorder.values == [1, 2])
  }

  @Test func demandFromReceive_writtenAsSynchronous() {
    let recorder = RecordingSubscriber<Int, TestError>(
      initialDemand: .max(1),
      demandPerValue: .max(2)
    )
    upstream.print(to: output).subscribe(recorder)
    upstream.send(7)
    #expect(
      output.lines == [
        "receive subscription: (TestPublisher)",
        "request max: (1)",
        "receive value: (7)",
        "request max: (2) (synchronous)",
      ]
    )
    #expect(upstream.outstandingDemand == .max(2))
  }

  @Test func demandNone_nothingDeliveredUntilRequested() {
    let recorder = RecordingSubscriber<Int, TestError>(initialDemand: nil)
    upstream.print(to: output).subscribe(recorder)
    upstream.send(1)
    #expect(recorder.values.isEmpty)
    recorder.request(.unlimited)
    upstream.send(2)
    #expect(recorder.values == [2])
    #expect(upstream.requests == [.demand(.unlimited)])
    #expect(output.lines.suffix(2) == ["request unlimited", "receive value: (2)"])
  }

  @Test func cancel_writesReceiveCancelOnceAndCancelsUpstream() {
    let recorder = RecordingSubscriber<Int, TestError>()
    upstream.print(to: output).subscribe(recorder)
    let subscription = recorder.subscription
    recorder.cancel()
    subscription?.cancel()
    upstream.send(1)
    #expect(output.lines.filter { $0 == "receive cancel" }.count == 1)
    #expect(output.lines.last == "receive cancel")
    #expect(upstream.requests == [.demand(.unlimited), .cancel])
    #expect(recorder.values.isEmpty)
  }

  @Test func cancelFromReceive_stopsDelivery() {
    let holder = LockedState<(any Subscription)?>(nil)
    let recorder = RecordingSubscriber<Int, TestError>(initialDemand: .unlimited) { _ in
      holder.withLock { $0 }?.cancel()
      return .none
    }
    upstream.print(to: output).subscribe(recorder)
    holder.withLock { $0 = recorder.subscription }
    upstream.send(1)
    upstream.send(2)
    #expect(recorder.values == [1])
    #expect(output.lines.suffix(2) == ["receive value: (1)", "receive cancel"])
  }

  @Test func subscription_describedAsPrint() {
    let recorder = RecordingSubscriber<Int, TestError>()
    upstream.print(to: output).subscribe(recorder)
    #expect(recorder.subscriptionDescription == "Print")
  }

  @Test func inner_releasedAfterCancelAndAfterCompletion() {
    weak var cancelled: AnyObject?
    weak var completed: AnyObject?
    do {
      let first = RecordingSubscriber<Int, TestError>()
      upstream.print(to: output).subscribe(first)
      cancelled = first.subscription as AnyObject?
      first.cancel()
      let second = RecordingSubscriber<Int, TestError>()
      upstream.print(to: output).subscribe(second)
      completed = second.subscription as AnyObject?
      upstream.send(completion: .finished)
    }
    #expect(cancelled == nil)
    #expect(completed == nil)
  }

  @Test func requestNone_isPassedUpstream_andPrinted_asCombineDoes() {
    let upstream = TestPublisher<Int, Never>()
    let recorder = RecordingSubscriber<Int, Never>(initialDemand: nil)
    upstream.print(to: output).subscribe(recorder)
    recorder.subscription?.request(.none)
    #expect(upstream.requests == [.demand(.none)])
    #expect(output.lines.last == "request max: (0)")
  }

  @Test func print_conforms() {
    PublisherConformance(
      elements: 3,
      makePublisher: {
        Record<Int, TestError>(output: [1, 2, 3], completion: .finished).print(to: PrintDiscard())
      },
      makeFailingPublisher: {
        Record<Int, TestError>(output: [1, 2, 3], completion: .failure(TestError())).print(
          to: PrintDiscard()
        )
      }
    )
    .run()
    .expectAllPassed(skipping: ["SC-1.05"])
  }
}

/// A text stream that keeps what is written, split into lines.
// Sendable: `text` is only reached under `lock`.
private final class PrintRecording: @unchecked Sendable, TextOutputStream {
  private let lock = Lock()
  private var text = ""

  func write(_ string: String) {
    lock.withLock { text += string }
  }

  var lines: [String] {
    lock.withLock { text.split(separator: "\n", omittingEmptySubsequences: false).dropLast() }
      .map(String.init)
  }
}

/// A text stream that drops what is written.
private struct PrintDiscard: TextOutputStream {
  mutating func write(_ string: String) {}
}
