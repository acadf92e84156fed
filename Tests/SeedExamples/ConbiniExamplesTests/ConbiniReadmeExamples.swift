// swift-format-ignore-file
// The Swift examples of Conbini's README (seeds/003), compiled against StreamKit.
//
// Each example is the README's code with `import Conbini` / `import ConbiniForTesting` replaced
// by the imports below; statements the README shows loose are wrapped in functions, and the
// names they use but don't declare (`upstream`, `queue`, …) are declared in "Stand-ins" at the
// end. The README writes `...` for "your code here"; such placeholders are filled with the
// least code that compiles, marked `Filled:`. Where the README's code can't compile by design,
// a comment says why and which entry of Docs/Migration/FromConbini.md covers it, and the
// example is left out or given in the adapted form, marked `Adapted:`.
// The README's `Package.swift` fragments and `import Conbini` lines are not Swift to compile.

import Dispatch
import FutureKit
import StreamConbini
import SignalOperators
import StreamCore
import StreamTesting
import Testing

#if canImport(XCTest)
import XCTest
#endif

// MARK: - Operators

func handleEndExample() -> Publishers.HandleEnd<PassthroughSubject<Int, ExampleError>> {
    // Filled: a `case` needs a statement, so each comment-only case gets `break`.
    let publisher = upstream.handleEnd { (completion) in
    switch completion {
    case .none: break // The publisher got cancelled.
    case .finished: break // The publisher finished successfully.
    case .failure(let error): _ = error // The publisher generated an error.
    }
    }
    return publisher  // added: uses the value
}

// Adapted: the README writes `let apiCallPublisher.retry(…)`, which is not a declaration (in
// Conbini either); FromConbini.md, "Delayed retry and buffer".
func retryExample() -> Publishers.DelayedRetry<Fail<Int, ExampleError>, DispatchQueue> {
    let publisher = apiCallPublisher.retry(on: queue, intervals: [0.5, 2, 5])
    // Same functionality to retry(3), but waiting between attemps 0.5, 2, and 5 seconds after each failed attempt.
    return publisher  // added: uses the value
}

func thenExample() -> Publishers.Then<PassthroughSubject<String, ExampleError>, Empty<Int, ExampleError>> {
    let publisher = setConfigurationOnServer.then {
    subscribeToWebsocket.publisher
    }
    return publisher  // added: uses the value
}

// MARK: - Subscriber operators

class CustomObject {
var value: Int = 0
var cancellable: AnyCancellable? = nil
func performOperation() {
cancellable = numberPublisher.assign(to: \.value, on: self)
}
}

// Left out as written: `await` is a keyword in Swift 6, so the property is
// `waitForValue(timeout:deliveredOn:)` (FromConbini.md, row `Publisher.await: Output`). Adapted,
// with that name:
func awaitExample() throws -> String {
    let publisher = Just("Hello")
    .delay(for: 2, scheduler: DispatchQueue.global())
    let greeting = try publisher.waitForValue(timeout: .seconds(60))
    return greeting  // added: uses the value
}

func invokeExample() -> AnyCancellable {
    struct Custom {
    func performOperation(_ value: Int) { /* do something */ }
    }
    let instance = Custom()
    let cancellable = [1, 2, 3].publisher.invoke(Custom.performOperation, on: instance)
    return cancellable  // added: uses the value
}

func resultExample() -> AnyCancellable {
    let cancellable = serverRequest.result { (result) in
    switch result {
    case .success(let value): _ = value // Filled: `...`
    case .failure(let error): _ = error // Filled: `...`
    }
    }
    return cancellable  // added: uses the value
}

func fixedDemandExample() -> AnyCancellable {
    // Filled: `...` in both closures.
    let cancellable = upstream.sink(fixedDemand: 5, receiveCompletion: { (completion) in _ = completion }) { (value) in _ = value }
    return cancellable  // added: uses the value
}

// Adapted: `maxDemand` is a `Subscribers.Demand`, and the README's `3` is an `Int` (in Conbini
// too); FromConbini.md, row `sink(maxDemand:receiveCompletion:receiveValue:)`.
func maxDemandExample() -> AnyCancellable {
    let cancellable = upstream.sink(maxDemand: .max(3)) { (value) in _ = value }  // Filled: `...`
    return cancellable  // added: uses the value
}

// MARK: - Publishers

// Adapted: nothing in `DeferredValue { … }` says what `Failure` is (Conbini's `failure:` default,
// `.self`, doesn't either), so the types are written out; FromConbini.md,
// "The Deferred* publishers".
func deferredValueExample() -> DeferredValue<Int, Never> {
      let publisher = DeferredValue<Int, Never> {
      return intenseProcessing()
      }
      return publisher  // added: uses the value
}

// Adapted: `.failure(…)` and `.success(…)` need the `Result` type from context, which nothing
// gives (in Conbini either), so the types are written out; FromConbini.md,
// "The Deferred* publishers".
func deferredResultExample() -> DeferredResult<Int, CustomError> {
      let publisher = DeferredResult<Int, CustomError> {
      guard someExpression else { return .failure(CustomError()) }
      return .success(someValue)
      }
      return publisher  // added: uses the value
}

// Adapted: nothing in `DeferredComplete { return errorOrNil }` says what `Output` is (in Conbini
// either), so the type is written out; FromConbini.md, "The Deferred* publishers".
func deferredCompleteExample() -> DeferredComplete<Int, ExampleError> {
      let publisher = DeferredComplete<Int, ExampleError> {
      return errorOrNil
      }
      return publisher  // added: uses the value
}

// Adapted: nothing in the closure says what `Failure` is (in Conbini either), so the types are
// written out; FromConbini.md, "The Deferred* publishers".
func deferredPassthroughExample() -> DeferredPassthrough<Int, Never> {
      let publisher = DeferredPassthrough<Int, Never> { (subject) in
      subject.send(something)
      subject.send(somethingElse)
      subject.send(completion: .finished)
      }
      return publisher  // added: uses the value
}

func bufferExample() -> Publishers.Buffer<PassthroughSubject<Int, ExampleError>> {
    let buffered = publisher.buffer(size: 10, prefetch: .keepFull, whenFull: .fatalError())
    return buffered  // added: the README's line is an expression
}

// MARK: - Subscribers

// Adapted: the sinks are `Subscribers.FixedSink` and `Subscribers.GraduatedSink` (in Conbini
// too), whose `Failure` nothing in the README's line gives; `maxDemand` is a `Demand`.
// FromConbini.md, rows `Subscribers.FixedSink` and `Subscribers.GraduatedSink`.
func fixedSinkExample() {
    let subscriber = Subscribers.FixedSink<Int, ExampleError>(demand: 5) { (value) in _ = value }  // Filled: `...`
    upstream.subscribe(subscriber)
}

func graduatedSinkExample() {
    let subscriber = Subscribers.GraduatedSink<Int, ExampleError>(maxDemand: .max(3)) { (value) in _ = value }  // Filled: `...`
    upstream.subscribe(subscriber)
}

// MARK: - Testing

#if canImport(XCTest)
final class ConbiniReadmeTestingExamples: XCTestCase {
  func testExpectations() {
    let test = self
    let emittedValues = publisherChain.expectsAll(timeout: 0.8, on: test)
    XCTAssertEqual(emittedValues, [1, 2, 3, 4, 5])  // added: uses the value
  }

  func testAtLeast() {
    let test = self
    let emittedValues = publisherChain.expectsAtLeast(values: 5, timeout: 0.8, on: test)
    XCTAssertEqual(emittedValues.count, 5)  // added: uses the value
  }

  func testAtLeastChecking() {
    let test = self
    let emittedValues = publisherChain.expectsAtLeast(values: 5, timeout: 0.8, on: test) { (value) in
    XCTAssert(value > 0)  // Filled: `XCTAssert...`
    }
    XCTAssertEqual(emittedValues.count, 5)  // added: uses the value
  }

  func testCompletion() {
    let test = self
    publisherChain.expectsCompletion(timeout: 0.8, on: test)
  }

  func testFailure() {
    let test = self
    failingChain.expectsFailure(timeout: 0.8, on: test)
  }

  func testOne() {
    let test = self
    let emittedValue = oneValueChain.expectsOne(timeout: 0.8, on: test)
    XCTAssertEqual(emittedValue, 1)  // added: uses the value
  }
}

// Left out: the README's `wait(seconds:)` example writes `PassthroughSubject()` without its
// generic arguments and `asyncAfter(.now() + 1)` without the `deadline:` label, so it compiles
// nowhere; `wait(seconds:)` itself is in StreamTesting (FromConbini.md, "Test helpers").
#endif

// MARK: - What the README says they do

@Suite(.timeLimit(.minutes(5))) struct ConbiniReadmeExamplesTests {
  /// "handleEnd … Executes (only once) the provided closure when the publisher completes".
  @Test func handleEnd_runsOnceOnCompletion() {
    let ends = LockedState<[String]>([])
    let subject = PassthroughSubject<Int, ExampleError>()
    let cancellable = subject.handleEnd { completion in
      ends.withLock { $0.append(completion == nil ? "cancelled" : "\(completion!)") }
    }.sink(receiveCompletion: { _ in }, receiveValue: { _ in })
    subject.send(completion: .finished)
    cancellable.cancel()
    #expect(ends.withLock { $0 } == ["finished"])
  }

  /// "DeferredValue … The closure is executed once a positive subscription is received", and
  /// again for each new subscriber.
  @Test func deferredValue_runsItsClosurePerSubscription() {
    let runs = LockedState(0)
    let publisher = DeferredValue<Int, Never> { runs.withLock { $0 += 1; return $0 } }
    #expect(runs.withLock { $0 } == 0)
    var values: [Int] = []
    _ = publisher.sink { values.append($0) }
    _ = publisher.sink { values.append($0) }
    #expect(values == [1, 2])
  }

  /// "sink(fixedDemand:) … request exactly fixedDemand values (after which the subscriber
  /// completes)".
  @Test func fixedDemand_takesFiveValuesThenCompletes() {
    var values: [Int] = []
    var completions: [Subscribers.Completion<Never>] = []
    _ = (1...9).publisher.sink(
      fixedDemand: 5,
      receiveCompletion: { completions.append($0) },
      receiveValue: { values.append($0) })
    #expect(values == [1, 2, 3, 4, 5])
    #expect(completions == [.finished])
  }
}

// MARK: - Stand-ins for the names the README uses

enum ExampleError: Error { case failed }
struct CustomError: Error {}

let upstream = PassthroughSubject<Int, ExampleError>()
let publisher = PassthroughSubject<Int, ExampleError>()
let apiCallPublisher = Fail<Int, ExampleError>(error: .failed)
let queue = DispatchQueue(label: "ConbiniReadmeExamples")
let setConfigurationOnServer = Empty<Int, ExampleError>()
struct Websocket { let publisher = PassthroughSubject<String, ExampleError>() }
let subscribeToWebsocket = Websocket()
let numberPublisher = Just(7)
let serverRequest = Just(200)
func intenseProcessing() -> Int { 42 }
let someExpression = true
let someValue = 1
let errorOrNil: ExampleError? = nil
let something = 1
let somethingElse = 2
let publisherChain = (1...5).publisher
let failingChain = Fail<Int, ExampleError>(error: .failed)
let oneValueChain = Just(1)
