import Dispatch
import Foundation
import PropertyWrappers
import StreamCore
import StreamShuttle
import StreamSnail
import StreamSwiftySignals

/// PropertyWrappers: Shuttle's events, `@Published`, Snail's and SwiftySignals' value holders.
///
/// It comes last: its final scenario ends in `dispatchMain()`, which runs the main queue and
/// never returns; the program ends through the `exit(0)` in its last main-queue action.
func tourPropertyWrappers() -> Never {
  module("PropertyWrappers", "observable properties and events")
  publishedOnLinux()
  valueHolders()
  shuttleEvents()
}

private final class Profile: ObservableObject {
  @Published var name = "Ada"
}

private func publishedOnLinux() {
  section(
    "@Published and ObservableObject, on Linux",
    look: "objectWillChange fires before the new name is stored."
  )
  let profile = Profile()
  let willChange = profile.objectWillChange.sink {
    print("objectWillChange: name is still", profile.name)
  }
  let names = profile.$name.sink { print("$name sent", $0) }
  profile.name = "Grace"
  willChange.cancel()
  names.cancel()
}

private func valueHolders() {
  section(
    "Snail's Variable and Unique (StreamSnail), SwiftySignals' Property (StreamSwiftySignals)",
    look: "Variable resends an equal value; Unique doesn't."
  )
  let volumeLevel = Variable(3)
  let volumeWatch = volumeLevel.asObservable().sink { print("Variable sent", $0) }
  volumeLevel.value = 3
  let mode = Unique("light")
  let modeWatch = mode.asObservable().sink { print("Unique sent", $0) }
  mode.value = "light"
  mode.value = "dark"
  let title = Property(value: "Untitled")
  // didSet delivers on the main queue by default, as in SwiftySignals; here, on this thread.
  let titleWatch = title.didSet.onAssigningThread().sink { print("Property sent", $0) }
  title.value = "Draft"
  volumeWatch.cancel()
  modeWatch.cancel()
  titleWatch.cancel()
}

/// Says where code runs. After `dispatchMain()` on Linux, a worker thread serves the main queue
/// (so `Thread.isMainThread` is false there); the main queue, and so the main actor, is what
/// counts.
private enum Where {
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

private final class Combobulator {
  @Event var refreshEvent
  @Event<String> var flubberBatchName
  @EventStream(value: 0) var flubberCount
}

private final class FlubberDisplay: Subscribing {
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

private func shuttleEvents() -> Never {
  section(
    "Shuttle's @Event, @EventStream, Subscribing and threading wrappers (StreamShuttle)",
    look: "the sender display runs on the sending queue; the main display on main."
  )
  let combobulator = Combobulator()
  // A stream delivers its current value at once: for the sender-thread display on the thread
  // that subscribes (here, main), for the main-thread display one main-queue turn later.
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
  // The displays must outlive the main-queue deliveries they are waiting for.
  withExtendedLifetime((combobulator, senderThreadDisplay, mainThreadDisplay)) { () -> Never in
    dispatchMain()
  }
}
