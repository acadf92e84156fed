import Dispatch
import Foundation
import FutureKit
import PropertyWrappers
import SignalOperators
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

section("StreamCore: ready-made publishers")
let numbers = [1, 2, 3].publisher
print("a publisher of", numbers.sequence)
_ = numbers.sink(
  receiveCompletion: { print("sequence:", $0) },
  receiveValue: { print("sequence value", $0) }
)
_ = Just("just one value").sink { print($0) }
_ = Empty<Int, Never>().sink(receiveCompletion: { print("Empty:", $0) }, receiveValue: { _ in })
struct LookupError: Error {}
_ = Fail<Int, LookupError>(error: LookupError())
  .sink(receiveCompletion: { print("Fail:", $0) }, receiveValue: { _ in })
_ = Record<Int, Never>(output: [7, 8], completion: .finished).sink { print("recorded", $0) }
_ = Deferred { Just("made on subscription") }.sink { print($0) }
let erased: AnyPublisher<Int, Never> = Optional(42).publisher.eraseToAnyPublisher()
_ = erased.sink { print("erased optional:", $0) }

section("StreamCore: a million values, one at a time, without recursion")
final class OneAtATime: Subscriber {
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
(0..<1_000_000).publisher.subscribe(OneAtATime())

section("StreamCore: schedulers")
ImmediateScheduler.shared.schedule { print("ImmediateScheduler runs actions at once") }
let queue = DispatchQueue(label: "examples")
let done = DispatchSemaphore(value: 0)
queue.schedule(after: queue.now.advanced(by: .milliseconds(10))) {
  print("DispatchQueue ran an action 10 ms later")
  done.signal()
}
done.wait()

// Keep this section last: it ends with `dispatchMain()`, which runs the main queue and never
// returns; the program ends through the `exit(0)` in its last main-queue action.
section("FutureKit: one Future for Combine and Propagate")
let promise = Promise<Int, LookupError>()
_ = promise.future
  .onSuccess { print("onSuccess:", $0) }
  .finally { print("finally:", $0) }
let futureToken = promise.future.sink(
  receiveCompletion: { print("sink completion:", $0) },
  receiveValue: { print("sink value:", $0) }
)
print("first resolve wins:", promise.resolve(42), "- second:", promise.resolve(7))
futureToken.cancel()
let lazy = DeferredValue<Int, Never> {
  print("DeferredValue's closure runs on the first demand")
  return 1
}
print("DeferredValue made; nothing has run yet")
_ = lazy.sink { print("DeferredValue sent", $0) }

section("SignalOperators: Conbini's handleEnd and fixed demand")
let tenNumbers = (1...10).publisher
let firstThree =
  tenNumbers
  .handleEnd { print("handleEnd:", $0.map { "\($0)" } ?? "cancelled") }
  .sink(
    fixedDemand: 3,
    receiveCompletion: { print("fixed demand completion:", $0) },
    receiveValue: { print("fixed demand value:", $0) }
  )
firstThree.cancel()

section("SignalOperators: a sign-up form validated with combineLatest")
let userName = CurrentValueSubject<String, Never>("")
let password = CurrentValueSubject<String, Never>("")
let formCheck = userName.combineLatest(password) { name, password in
  !name.isEmpty && password.count >= 8
}
.removeDuplicates()
.sink { print("form valid:", $0) }
userName.value = "ada"
password.value = "correct horse"
userName.value = ""
formCheck.cancel()

section("SignalOperators: merge, map, collect, flatMap")
let left = PassthroughSubject<Int, Never>()
let right = PassthroughSubject<Int, Never>()
let merged = left.merge(with: right).map { $0 * 10 }.collect(3)
  .sink { print("merged, mapped and collected in threes:", $0) }
left.send(1)
right.send(2)
left.send(3)
merged.cancel()
_ = (1...3).publisher
  .flatMap(maxPublishers: .max(1)) { n in [n, n * 100].publisher }
  .collect()
  .sink { print("flatMap, one child at a time:", $0) }

section("SignalOperators: async/await in both directions")
let asyncDone = DispatchSemaphore(value: 0)
Task.detached {
  var sum = 0
  for await value in (1...4).publisher.values {
    sum += value
  }
  print("for await over a publisher's values: sum =", sum)
  let stream = AsyncStream<Int> { continuation in
    for value in 1...3 { continuation.yield(value) }
    continuation.finish()
  }
  let collected = try? await stream.publisher.collect().singleValue()
  print("an AsyncStream as a publisher, collected:", collected ?? [])
  asyncDone.signal()
}
asyncDone.wait()

section("PropertyWrappers: @Published and ObservableObject, on Linux")
final class Profile: ObservableObject {
  @Published var name = "Ada"
}
let profile = Profile()
let willChange = profile.objectWillChange.sink {
  print("objectWillChange: name is still", profile.name)
}
let names = profile.$name.sink { print("$name sent", $0) }
profile.name = "Grace"
willChange.cancel()
names.cancel()

section("PropertyWrappers: Snail's Variable and Unique, SwiftySignals' Property")
let volumeLevel = Variable(3)
let volumeWatch = volumeLevel.asObservable().sink { print("Variable sent", $0) }
volumeLevel.value = 3
let mode = Unique("light")
let modeWatch = mode.asObservable().sink { print("Unique sent", $0) }
mode.value = "light"
mode.value = "dark"
let title = Property(value: "Untitled")
let titleWatch = title.didSet.sink { print("Property sent", $0) }
title.value = "Draft"
volumeWatch.cancel()
modeWatch.cancel()
titleWatch.cancel()

section("PropertyWrappers: Shuttle's @Event, @EventStream, Subscribing and threading wrappers")

/// Says where code runs. After `dispatchMain()` on Linux, a worker thread serves the main queue
/// (so `Thread.isMainThread` is false there); the main queue, and so the main actor, is what
/// counts.
enum Where {
  static let mainQueueKey: DispatchSpecificKey<Bool> = {
    let key = DispatchSpecificKey<Bool>()
    DispatchQueue.main.setSpecific(key: key, value: true)
    return key
  }()

  static var now: String {
    DispatchQueue.getSpecific(key: mainQueueKey) == true
      ? "on the main queue" : "off the main queue"
  }
}

final class Combobulator {
  @Event var refreshEvent
  @Event<String> var flubberBatchName
  @EventStream(value: 0) var flubberCount
}

final class FlubberDisplay: Subscribing {
  var cancellables = Set<AnyCancellable>()
  let prefersMainThreadExecution: Bool
  private let name: String

  init(_ name: String, showing combobulator: Combobulator, prefersMain: Bool) {
    self.name = name
    prefersMainThreadExecution = prefersMain
    // Methods are held weakly with `calling:`; closures capture `[weak self]`.
    subscribe(to: combobulator.refreshEvent, calling: FlubberDisplay.refresh)
    subscribe(to: combobulator.flubberBatchName, calling: FlubberDisplay.updateBatchName(to:))
    subscribe(to: combobulator.flubberCount) { [weak self] count in self?.show("count \(count)") }
  }

  func refresh() { show("refresh") }

  func updateBatchName(to batch: String) { show("batch \(batch)") }

  private func show(_ text: String) { print("\(name): \(text), \(Where.now)") }
}

let combobulator = Combobulator()
// A stream delivers its current value at once: for the sender-thread display on the thread that
// subscribes (here, main), for the main-thread display one main-queue turn later.
let senderThreadDisplay = FlubberDisplay(
  "sender display",
  showing: combobulator,
  prefersMain: false
)
let mainThreadDisplay = FlubberDisplay("main display", showing: combobulator, prefersMain: true)
let sent = DispatchSemaphore(value: 0)
// The subjects are Sendable, so another queue may send through them.
DispatchQueue(label: "combobulator").async {
  [
    name = combobulator.flubberBatchName, count = combobulator.flubberCount,
    refresh = combobulator.refreshEvent
  ] in
  name.send("B-12")
  count.value = 12
  refresh.send()
  sent.signal()
}
sent.wait()
print("sent from another queue; the main display hears once the main queue runs")

do {
  let ran = DispatchSemaphore(value: 0)
  @UtilityThreaded var tidy = {
    print("@UtilityThreaded: ran", Where.now)
    ran.signal()
  }
  tidy()
  ran.wait()
  @MainThreaded var announce = { print("@MainThreaded: ran", Where.now) }
  announce()
  print("@MainThreaded: returned before its closure ran")
  @Delayed(20) var finish = {
    print("@Delayed(20): ran 20 ms later,", Where.now)
    exit(0)
  }
  finish()
}
dispatchMain()
