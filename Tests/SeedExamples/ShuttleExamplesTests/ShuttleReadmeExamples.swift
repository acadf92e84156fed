// swift-format-ignore-file
// The Swift examples of Shuttle's README (seeds/000), compiled against StreamKit.
//
// Each example is the README's code with `import Combine` / `import Shuttle` replaced by the
// imports below. Where the README's code can't compile by design (in Shuttle either), a comment
// says why and which entry of Docs/Migration/FromShuttle.md covers it, and the example is left
// out or given in the adapted form that guide entry describes, marked `Adapted:`.

import Dispatch
import PropertyWrappers
import StreamCore
import Testing
import StreamShuttle

// MARK: - Creating @Events

// Left out as written: the README's `Combobulator.loadFlubbers()` calls itself with
// `try await loadFlubbers()` and reads `.batchName` from the `Void` it returns, and
// `combobulate(_:)` has a `...` body, so it compiles nowhere. Its three property declarations
// are the example; they are verbatim here, in the class the README declares.
class Combobulator {
  @Event var refreshEvent
  @Event<String> var flubberBatchName
  @EventStream<Int>(value: 0) var flubberCount
}

// MARK: - Subscribing

// Adapted: the README's `FlubberDisplay` omits `cancellables`, which `Subscribing` requires (in
// Shuttle too), and declares `udpateFlubberCount` but subscribes `updateFlubberCount(to:)`, so
// it compiles nowhere; FromShuttle.md, "Every public item", row
// `var cancellables: Set<AnyCancellable> { get set }`. With those two fixed, the rest is
// verbatim, `performing: refresh` (a method reference, which holds `self` strongly) included.
class FlubberDisplay: Subscribing {
  var cancellables = Set<AnyCancellable>()  // Adapted: required, omitted by the README
  let prefersMainThreadExecution = true
  let combobulator = Combobulator()

  init() {
    subscribe(to: combobulator.refreshEvent, performing: refresh)
    subscribe(to: combobulator.flubberBatchName, performing: updateBatchName(to:))
    subscribe(to: combobulator.flubberCount, performing: updateFlubberCount(to:))
  }

  func refresh() {
  }

  func updateBatchName(to name: String) {
  }

  func updateFlubberCount(to count: Int) {  // Adapted: the README misspells it `udpate…`
  }
}

// MARK: - Threading property wrappers

// Adapted: the README declares `@MainThreaded var action = { [weak self] in … }` as a stored
// property, where `self` can't be used in an initial value (in Shuttle too), and sets a UIKit
// label. As a local variable, with the label line left out, the example is:
func mainThreadedExample() {
  @MainThreaded var action = {
    print("executed on main thread")
  }
  action()
}

// Left out as written: `@Delayed2` never existed in Shuttle; the wrapper is `@Delayed`
// (FromShuttle.md, row `@Delayed(wrappedValue:_:thread:)`). With that name, verbatim:
func delayedExample() {
  @Delayed(500) var action = {
    print("do something")
  }
  action()

  @Delayed(500, thread: .global(qos: .background)) var backgroundAction = {
    print("do something")
  }
  backgroundAction()
}

// MARK: - What the README says they do

@Suite(.timeLimit(.minutes(5))) struct ShuttleReadmeExamplesTests {
  /// A `FlubberDisplay` that prefers the sender's thread, so deliveries can be checked without
  /// the main queue.
  final class Recorder: Subscribing {
    var cancellables = Set<AnyCancellable>()
    let prefersMainThreadExecution = false
    let combobulator = Combobulator()
    let log = LockedLog()

    init() {
      subscribe(to: combobulator.refreshEvent, performing: refresh)
      subscribe(to: combobulator.flubberBatchName, performing: updateBatchName(to:))
      subscribe(to: combobulator.flubberCount, performing: updateFlubberCount(to:))
    }

    func refresh() { log.append("refresh") }
    func updateBatchName(to name: String) { log.append("batch \(name)") }
    func updateFlubberCount(to count: Int) { log.append("count \(count)") }
  }

  /// "@EventStream … depending on … will produce a PassthroughSubject": the events deliver what
  /// is sent after subscribing; the stream replays its value to the new subscriber.
  @Test func subscribing_deliversEventsAndTheStreamsValue() {
    let display = Recorder()
    #expect(display.log.entries == ["count 0"])
    display.combobulator.flubberBatchName.send("B-12")
    display.combobulator.flubberCount.value = 3
    display.combobulator.refreshEvent.send()
    #expect(display.log.entries == ["count 0", "batch B-12", "count 3", "refresh"])
  }

  /// The README's `FlubberDisplay` compiles and subscribes three times.
  @Test func flubberDisplay_keepsItsThreeSubscriptions() {
    #expect(FlubberDisplay().cancellables.count == 3)
  }

  /// "@MainThreaded … execution on certain threads": the action runs on the main queue.
  @Test func mainThreaded_runsOnTheMainQueue() async {
    let key = DispatchSpecificKey<Bool>()
    DispatchQueue.main.setSpecific(key: key, value: true)
    let onMain = await withCheckedContinuation { continuation in
      @MainThreaded var action = {
        continuation.resume(returning: DispatchQueue.getSpecific(key: key) == true)
      }
      action()
    }
    #expect(onMain)
  }
}

/// A list of strings that callbacks append to from any thread.
final class LockedLog: Sendable {
  private let storage = LockedState<[String]>([])

  func append(_ entry: String) { storage.withLock { $0.append(entry) } }

  var entries: [String] { storage.withLock { $0 } }
}
