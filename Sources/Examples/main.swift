import StreamCore

// A short tour of what StreamKit has today. Run with `swift run Examples`.

func section(_ title: String) {
  print("\n== \(title) ==")
}

section("StreamCore: a subject with a sink")
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

section("StreamCore: CurrentValueSubject replays its value to new subscribers")
let temperature = CurrentValueSubject<Int, Never>(21)
let display = temperature.sink { print("temperature is now", $0) }
temperature.value = 23
display.cancel()
temperature.value = 25
print("after cancel the sink stays quiet; value =", temperature.value)

section("StreamCore: demand, by hand")
final class TwoAtATime: Subscriber {
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
let counter = CurrentValueSubject<Int, Never>(0)
let twoAtATime = TwoAtATime()
counter.subscribe(twoAtATime)
counter.send(1)
counter.send(2)
print("no demand left: 2 is kept as the latest value for this subscriber")
twoAtATime.subscription?.request(.max(1))
twoAtATime.subscription?.cancel()
