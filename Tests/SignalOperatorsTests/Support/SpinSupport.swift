import Dispatch

/// Spins until `condition` holds, for at most `seconds`; returns whether it held in time.
///
/// The thread-racing tests spin on one thread until another has made progress. An unbounded
/// spin would hang the whole run if that progress never came; this one gives up, and the caller
/// fails the test.
func spinUntil(within seconds: Int = 60, _ condition: () -> Bool) -> Bool {
  let deadline = DispatchTime.now() + .seconds(seconds)
  while !condition() {
    if DispatchTime.now() >= deadline { return false }
  }
  return true
}
