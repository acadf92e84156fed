import Dispatch
import SignalOperators
import StreamConbini
import StreamConcurrency
import StreamCore
import StreamTesting

/// SignalOperators: Combine's operators and those of Conbini, Snail and SwiftySignals.
func tourSignalOperators() {
  module("SignalOperators", "Combine's operators, and those of Conbini, Snail and SwiftySignals")
  debouncedSearchBox()
  handleEndAndFixedDemand()
  signUpForm()
  mergeMapCollectFlatMap()
  asyncAwait()
}

private func debouncedSearchBox() {
  section(
    "A search box debounced by 300 ms, on a TestScheduler's virtual time",
    look: "one search per 300 ms pause; the repeated \"swift\" is dropped."
  )
  // No clock runs here: time moves only when `advance(by:)` is called, so the output is the same
  // on every run. Swap in `DispatchQueue.main` for a real search box.
  let scheduler = TestScheduler()
  let milliseconds = { scheduler.now.ticks / 1_000_000 }
  let query = PassthroughSubject<String, Never>()
  var searchCount = 0
  let searches =
    query
    .debounce(for: .milliseconds(300), scheduler: scheduler)
    .removeDuplicates()
    .sink {
      searchCount += 1
      print("  t=\(milliseconds()) ms: search for \"\($0)\"")
    }
  func type(_ text: String, thenWait pause: Int) {
    print("t=\(milliseconds()) ms: the box holds \"\(text)\"")
    query.send(text)
    scheduler.advance(by: .milliseconds(pause))
  }
  type("s", thenWait: 100)
  type("sw", thenWait: 100)
  type("swi", thenWait: 100)
  type("swift", thenWait: 500)  // 300 ms without a change: a search
  type("swift ui", thenWait: 100)
  type("swift", thenWait: 500)  // back to the same text: removeDuplicates drops it
  print(
    "t=\(milliseconds()) ms: 6 changes, \(searchCount) search; the repeated \"swift\" was dropped"
  )
  searches.cancel()
}

private func handleEndAndFixedDemand() {
  section(
    "Conbini's handleEnd and fixed demand (StreamConbini)",
    look: "exactly 3 values and finished; upstream sees a cancel, not its own end."
  )
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
}

private func signUpForm() {
  section(
    "A sign-up form validated with combineLatest",
    look: "the button changes only when validity changes."
  )
  let userName = CurrentValueSubject<String, Never>("")
  let password = CurrentValueSubject<String, Never>("")
  print("both fields empty")
  // Valid with a name and a password of 8 characters or more; the button shows only changes.
  let signUpButton = userName.combineLatest(password) { name, password in
    !name.isEmpty && password.count >= 8
  }
  .removeDuplicates()
  .sink { print("  sign-up button", $0 ? "enabled" : "disabled") }
  print("name = \"ada\"")
  userName.value = "ada"
  print("password = \"correct\" (7 characters)")
  password.value = "correct"
  print("password = \"correct horse\"")
  password.value = "correct horse"
  print("name = \"\"")
  userName.value = ""
  signUpButton.cancel()
}

private func mergeMapCollectFlatMap() {
  section(
    "merge, map, collect, flatMap",
    look: "values from both subjects in send order; flatMap runs one child at a time."
  )
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
}

private func asyncAwait() {
  section(
    "async/await in both directions",
    look: "the sum of 1...4 and the stream's 3 values, both through async code."
  )
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
}
