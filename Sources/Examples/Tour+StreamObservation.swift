import Observation
import SignalOperators
import StreamConbini
import StreamCore
import StreamObservation
import StreamTesting

/// StreamObservation: `@Observable` models as publishers, on a virtual-time scheduler.
func tourStreamObservation() {
  module("StreamObservation", "@Observable models as publishers, and pipelines driving them")
  propertyAsAPublisher()
  closureAsAPublisher()
  pipelineDrivingAModel()
}

/// A view model kept with Observation rather than `ObservableObject`.
@Observable private final class Basket {
  var items: [String] = []
  var discount = 0
  var status = ""
  @ObservationIgnored var cancellables: Set<AnyCancellable> = []
}

private func propertyAsAPublisher() {
  section(
    "model.publisher(for: \\.items, scheduler:): the value after each change",
    look: "the first value on the first turn; three changes before a turn give one value."
  )
  let scheduler = TestScheduler()
  let basket = Basket()
  let cancellable = basket.publisher(for: \.items, scheduler: scheduler)
    .sink { print("items:", $0) }
  print("subscribed; nothing until the scheduler runs")
  scheduler.advance()
  basket.items.append("apple")
  scheduler.advance()
  basket.items.append("pear")
  basket.items.append("plum")
  basket.items.removeFirst()
  print("three changes, then one turn:")
  scheduler.advance()
  cancellable.cancel()
}

private func closureAsAPublisher() {
  section(
    "ObservationTrackingPublisher { … }: whatever the closure reads",
    look: "a change to either property gives a new total; an unread property gives none."
  )
  let scheduler = TestScheduler()
  let basket = Basket()
  let total = ObservationTrackingPublisher(scheduler: scheduler) {
    basket.items.count * 10 - basket.discount
  }
  let cancellable = total.sink { print("total:", $0) }
  scheduler.advance()
  basket.items = ["apple", "pear"]
  scheduler.advance()
  basket.discount = 5
  scheduler.advance()
  basket.status = "not read by the closure"
  scheduler.advance()
  cancellable.cancel()
}

private func pipelineDrivingAModel() {
  section(
    "assign(to:onWeak:) drives an @Observable model without a retain cycle",
    look: "the model's own pipeline sets its status; the model deinitialises when dropped."
  )
  let scheduler = TestScheduler()
  var basket: Basket? = Basket()
  if let basket {
    basket.publisher(for: \.items, scheduler: scheduler)
      .map { $0.isEmpty ? "empty" : "\($0.count) item(s)" }
      .assign(to: \.status, onWeak: basket)
      .store(in: &basket.cancellables)
  }
  scheduler.advance()
  print("status:", basket?.status ?? "-")
  basket?.items = ["apple"]
  scheduler.advance()
  print("status:", basket?.status ?? "-")
  weak let gone = basket
  basket = nil
  print("deinitialised:", gone == nil)
}
