import FutureKit
import StreamCore

/// FutureKit: `Future` and `Promise`, Propagate's streams and Conbini's deferred publishers.
func tourFutureKit() {
  module("FutureKit", "futures, promises and deferred publishers")
  oneFuture()
}

private func oneFuture() {
  section("One Future for Combine and Propagate")
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
}
