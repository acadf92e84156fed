import Dispatch
import StreamCore
import Testing

/// Code written the way Combine users write it, with only the import changed. If StreamCore's
/// API drifts from Combine's, this file stops compiling.
@Suite(.timeLimit(.minutes(5))) struct CombineCompatibilityTests {
  final class ViewModel {
    let title = CurrentValueSubject<String, Never>("")
    let taps = PassthroughSubject<Void, Never>()
    var shown = ""
    var tapCount = 0
    private var cancellables = Set<AnyCancellable>()

    init() {
      title.assign(to: \.shown, on: self).store(in: &cancellables)
      taps.sink { [unowned self] in self.tapCount += 1 }.store(in: &cancellables)
    }

    /// Breaks the retain cycle that `assign(to:on:)` on `self` makes, as in Combine.
    func tearDown() {
      cancellables.removeAll()
    }
  }

  final class CountingSubscriber: Subscriber {
    typealias Input = Int
    typealias Failure = Never
    var received: [Int] = []
    var completion: Subscribers.Completion<Never>?

    func receive(subscription: any Subscription) {
      subscription.request(.max(2))
    }

    func receive(_ input: Int) -> Subscribers.Demand {
      received.append(input)
      return input == 2 ? .max(1) : .none
    }

    func receive(completion: Subscribers.Completion<Never>) {
      self.completion = completion
    }
  }

  @Test func viewModelPattern_compilesAndBehaves() {
    let model = ViewModel()
    model.title.value = "Hello"
    model.taps.send()
    model.taps.send()
    #expect(model.shown == "Hello")
    #expect(model.tapCount == 2)
    model.tearDown()
  }

  @Test func customSubscriber_withDemand() {
    let subscriber = CountingSubscriber()
    [1, 2, 3, 4].publisher.subscribe(subscriber)
    #expect(subscriber.received == [1, 2, 3])
    #expect(subscriber.completion == nil)
  }

  @Test func typeErasure_andBasicPublishers() {
    func numbers(fail: Bool) -> AnyPublisher<Int, TestError> {
      if fail {
        return Fail(error: TestError()).eraseToAnyPublisher()
      }
      return Just(1).setFailureTypeForTests().eraseToAnyPublisher()
    }
    var values: [Int] = []
    var completions: [Subscribers.Completion<TestError>] = []
    for fail in [false, true] {
      _ = numbers(fail: fail).sink(
        receiveCompletion: { completions.append($0) },
        receiveValue: { values.append($0) }
      )
    }
    #expect(values == [1])
    #expect(completions == [.finished, .failure(TestError())])
  }

  @Test func anySubscriberAndSubjects_interoperate() {
    let relay = PassthroughSubject<Int, Never>()
    var seen: [Int] = []
    let token = relay.sink { seen.append($0) }
    let upstream = [1, 2, 3].publisher.subscribe(relay)
    Empty<Int, Never>().subscribe(AnySubscriber(relay))
    #expect(seen == [1, 2, 3])
    token.cancel()
    upstream.cancel()
  }

  @Test func schedulers_acceptCombineStyleCalls() {
    // Scheduler actions are `@Sendable` here (a documented difference), so state they touch
    // must be safe to share.
    let ran = Log()
    ImmediateScheduler.shared.schedule { ran.append("ran") }
    #expect(ran.entries == ["ran"])
    let queue = DispatchQueue(label: "compat")
    let done = DispatchSemaphore(value: 0)
    queue.schedule(after: queue.now.advanced(by: .milliseconds(1))) { done.signal() }
    #expect(done.wait(timeout: .now() + 10) == .success)
  }

  @Test func demandArithmetic_readsLikeCombine() {
    var demand = Subscribers.Demand.max(1)
    demand += 2
    demand -= .max(1)
    #expect(demand == .max(2))
    #expect(demand > 1)
    #expect(Subscribers.Demand.unlimited > demand)
  }

  @Test func deferredRecordAndOptional_publish() {
    var values: [Int] = []
    _ = Deferred { Record(output: [1, 2], completion: .finished) }.sink { values.append($0) }
    _ = Optional(3).publisher.sink { values.append($0) }
    _ = Result<Int, Never>.success(4).publisher.sink { values.append($0) }
    #expect(values == [1, 2, 3, 4])
  }
}

extension Just {
  /// `setFailureType(to:)` lives in SignalOperators; a stand-in so this file needs only the core.
  fileprivate func setFailureTypeForTests() -> AnyPublisher<Output, TestError> {
    AnyPublisher(
      Deferred { [output] in Result<Output, TestError>.success(output).publisher }
    )
  }
}
