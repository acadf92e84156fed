import FutureKit
import StreamCore

/// A ``StreamPublisher`` that remembers its latest state and replays it to each new callback.
/// Propagate's `StatefulPublisher<T, E>`.
///
/// ```swift
/// let session = StatefulStreamPublisher<User?, AuthError>()
/// session.publish(nil)
/// let subscriber = session.subscriber()
/// subscriber.onNewData { print("user:", $0 as Any) }  // prints "user: nil" at once
/// ```
///
/// Every callback registered on one of its subscribers is called first with the latest state,
/// synchronously on the registering thread (also when the callback is given a queue, as in
/// Propagate), and then with every later state, on the callback's queue. The replay happens once per registration call, not once per subscriber.
/// After ``StreamPublisher/cancelAll()`` the latest state is `.cancelled`, so a new callback
/// receives only that.
///
/// > Thread safety: As ``StreamPublisher``. A callback registered while another thread is
/// > delivering receives the replay before any newer state.
// Sendable: as `StreamPublisher`, whose lock guards the stored states.
public final class StatefulStreamPublisher<T, E: Error>: StreamPublisher<T, E>, @unchecked Sendable
{
  /// Creates a publisher with no state yet.
  public init() {
    super.init(keepsState: true)
  }

  /// The latest state published, `.cancelled` after ``StreamPublisher/cancelAll()``; `nil`
  /// before the first.
  public var lastState: State? {
    lock.withLock { latestPublished }
  }

  /// The latest value published, kept after later errors and after cancellation.
  public var lastValue: T? {
    lock.withLock { latestValue }
  }
}
