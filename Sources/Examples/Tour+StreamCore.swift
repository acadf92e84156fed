import Dispatch
import StreamCore

/// StreamCore: Combine's protocols, subjects, basic publishers and schedulers.
func tourStreamCore() {
  module("StreamCore", "publishers, subscribers, subjects, demand and schedulers")
  subjectWithSink()
  currentValueSubject()
  demandByHand()
  readyMadePublishers()
  aMillionValues()
  schedulers()
}

/// The error the tour's failing publishers fail with.
struct LookupError: Error {}

private func subjectWithSink() {
  section(
    "A subject with a sink",
    look: "two values, then the completion; the value sent after it never arrives."
  )
  let greetings = PassthroughSubject<String, Never>()
  var cancellables = Set<AnyCancellable>()
  greetings
    .sink(
      receiveCompletion: { print("completion:", $0) },
      receiveValue: { print("received:", $0) }
    )
    .store(in: &cancellables)
  greetings.send("hello")
  greetings.send("world")
  greetings.send(completion: .finished)
  greetings.send("ignored: sent after completion")
}

private func currentValueSubject() {
  section(
    "CurrentValueSubject replays its value to new subscribers",
    look: "21 arrives at once on subscribing; nothing after cancel()."
  )
  let temperature = CurrentValueSubject<Int, Never>(21)
  let display = temperature.sink { print("temperature is now", $0) }
  temperature.value = 23
  display.cancel()
  temperature.value = 25
  print("after cancel the sink stays quiet; value =", temperature.value)
}

/// Asks for two values up front and prints what it gets.
private final class TwoAtATime: Subscriber {
  typealias Input = Int
  typealias Failure = Never
  var subscription: (any Subscription)?

  func receive(subscription: any Subscription) {
    print("subscribed to", subscription)
    self.subscription = subscription
    subscription.request(.max(2))
  }

  func receive(_ input: Int) -> Subscribers.Demand {
    print("got", input)
    return .none
  }

  func receive(completion: Subscribers.Completion<Never>) {
    print("completion:", completion)
  }
}

private func demandByHand() {
  section(
    "Demand, by hand",
    look: "0 and 1 use up .max(2); 2 waits, kept as the latest value, for the next request."
  )
  let counter = CurrentValueSubject<Int, Never>(0)
  let twoAtATime = TwoAtATime()
  counter.subscribe(twoAtATime)
  counter.send(1)
  counter.send(2)
  print("no demand left: 2 is kept as the latest value for this subscriber")
  twoAtATime.subscription?.request(.max(1))
  twoAtATime.subscription?.cancel()
}

private func readyMadePublishers() {
  section(
    "Ready-made publishers",
    look: "each publisher's values, then its completion (Fail's is a failure)."
  )
  let numbers = [1, 2, 3].publisher
  print("a publisher of", numbers.sequence)
  _ = numbers.sink(
    receiveCompletion: { print("sequence:", $0) },
    receiveValue: { print("sequence value", $0) }
  )
  _ = Just("just one value").sink { print($0) }
  _ = Empty<Int, Never>().sink(receiveCompletion: { print("Empty:", $0) }, receiveValue: { _ in })
  _ = Fail<Int, LookupError>(error: LookupError())
    .sink(receiveCompletion: { print("Fail:", $0) }, receiveValue: { _ in })
  _ = Record<Int, Never>(output: [7, 8], completion: .finished).sink { print("recorded", $0) }
  _ = Deferred { Just("made on subscription") }.sink { print($0) }
  let erased: AnyPublisher<Int, Never> = Optional(42).publisher.eraseToAnyPublisher()
  _ = erased.sink { print("erased optional:", $0) }
}

/// Asks for one value at a time, from inside `receive(_:)`, and counts what arrives.
private final class OneAtATime: Subscriber {
  typealias Input = Int
  typealias Failure = Never
  var count = 0

  func receive(subscription: any Subscription) { subscription.request(.max(1)) }

  func receive(_ input: Int) -> Subscribers.Demand {
    count += 1
    return .max(1)
  }

  func receive(completion: Subscribers.Completion<Never>) { print("received", count, "values") }
}

private func aMillionValues() {
  section(
    "A million values, one at a time, without recursion",
    look: "all 1,000,000 arrive, with no stack overflow."
  )
  (0..<1_000_000).publisher.subscribe(OneAtATime())
}

private func schedulers() {
  section(
    "Schedulers",
    look: "the immediate action first, the queue's action 10 ms later."
  )
  ImmediateScheduler.shared.schedule { print("ImmediateScheduler runs actions at once") }
  let queue = DispatchQueue(label: "examples")
  let done = DispatchSemaphore(value: 0)
  queue.schedule(after: queue.now.advanced(by: .milliseconds(10))) {
    print("DispatchQueue ran an action 10 ms later")
    done.signal()
  }
  done.wait()
}
