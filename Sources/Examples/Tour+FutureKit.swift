import FutureKit
import SignalOperators
import StreamConbini
import StreamCore
import StreamPropagate
import Synchronization

/// FutureKit: `Future` and `Promise`, Propagate's streams and Conbini's deferred publishers.
func tourFutureKit() {
  module("FutureKit", "futures, promises and deferred publishers")
  oneFuture()
  chainWithRetry()
  deferredFutureWithRetry()
}

private func oneFuture() {
  section(
    "One Future for Combine (FutureKit) and Propagate (StreamPropagate)",
    look: "the first resolve wins; DeferredValue's closure runs only when the sink subscribes."
  )
  let promise = Promise<Int, LookupError>()
  // Propagate's callbacks run later, on the future's own queue; `.synchronously` runs them
  // inside `resolve`, so that the tour prints in order.
  _ = promise.future
    .onSuccess(.synchronously) { print("onSuccess:", $0) }
    .finally(.synchronously) { print("finally:", $0) }
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
}

/// The failure of the tour's pretend server.
private struct ServerBusy: Error {}

/// Looks up a user's id; answers at once.
private func lookUpUser(_ name: String) -> Future<Int, ServerBusy> {
  print("  looking up \(name): user 7")
  return .of(7)
}

/// Fetches a user's basket; the server is busy on the first two attempts.
private func fetchBasket(of user: Int, attempt: Int) -> Future<[String], ServerBusy> {
  Future { promise in
    if attempt < 3 {
      print("  basket of user \(user), attempt \(attempt): server busy")
      promise(.failure(ServerBusy()))
    } else {
      print("  basket of user \(user), attempt \(attempt): tea, milk")
      promise(.success(["tea", "milk"]))
    }
  }
}

/// Starts `work`, and on failure starts it again, up to `attempts` attempts in all.
private func retrying<Value>(
  _ attempts: Int,
  attempt: Int = 1,
  _ work: @escaping @Sendable (_ attempt: Int) -> Future<Value, ServerBusy>
) -> Future<Value, ServerBusy> {
  work(attempt).flatMapError { failure in
    attempt < attempts ? retrying(attempts, attempt: attempt + 1, work) : .error(failure)
  }
}

private func chainWithRetry() {
  section(
    "A chain of futures, with a retry made of flatMapError",
    look: "3 attempts reach the basket; with 2 the failure reaches onFailure."
  )
  for attempts in [3, 2] {
    print("allowing \(attempts) attempts:")
    lookUpUser("ada")
      .flatMapSuccess { user in retrying(attempts) { fetchBasket(of: user, attempt: $0) } }
      .mapValue { $0.count }
      .onSuccess(.synchronously) { print("  onSuccess: \($0) items") }
      .onFailure(.synchronously) { print("  onFailure:", $0) }
  }
}

/// Counts attempts from any thread.
private final class AttemptCounter: Sendable {
  private let count = Mutex(0)

  func next() -> Int {
    count.withLock { count in
      count += 1
      return count
    }
  }
}

private func deferredFutureWithRetry() {
  section(
    "Combine style: retry(2) resubscribes, and a DeferredFuture runs again",
    look: "attempts 1 and 2 fail, attempt 3 sends the basket."
  )
  // A `Future` runs once and keeps its result, so resubscribing would fail again; a
  // `DeferredFuture` runs its closure for each subscription.
  let attempts = AttemptCounter()
  let basket = DeferredFuture<[String], ServerBusy> { promise in
    let attempt = attempts.next()
    print("  attempt \(attempt)", attempt < 3 ? "fails" : "succeeds")
    promise(attempt < 3 ? .failure(ServerBusy()) : .success(["tea", "milk"]))
  }
  _ = basket.retry(2).sink(
    receiveCompletion: { print("  completion:", $0) },
    receiveValue: { print("  value:", $0) }
  )
}
