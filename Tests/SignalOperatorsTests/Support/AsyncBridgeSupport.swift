import Foundation

/// Waits until `condition` holds, checking every millisecond for at most `seconds`.
///
/// For conditions that another task or thread makes true; the result says whether it did in
/// time, so a test fails instead of hanging. The default is long because a task's first job
/// queues behind the test jobs waiting for the two-thread cooperative pool.
func asyncBridgeEventually(
  within seconds: Int = 120,
  _ condition: () -> Bool
) async -> Bool {
  let deadline = ContinuousClock.now + .seconds(seconds)
  while !condition() {
    if ContinuousClock.now > deadline { return false }
    try? await Task.sleep(for: .milliseconds(1))
  }
  return true
}

/// Runs `body` on a thread of its own and awaits its result.
///
/// The conformance kit blocks its thread while it waits for a publisher. A publisher that
/// delivers from a task needs a free thread of the cooperative pool, which has only as many
/// threads as cores, so the kit must not run on that pool.
func asyncBridgeOffThePool<Result: Sendable>(
  _ body: @escaping @Sendable () -> Result
) async -> Result {
  await withCheckedContinuation { continuation in
    let thread = Thread { continuation.resume(returning: body()) }
    thread.start()
  }
}
