import StreamCore

/// A subscription that records the requests and cancels it receives.
// Sendable: all mutable state is guarded by `lock`.
final class SpySubscription: Subscription, @unchecked Sendable {
  private let lock = Lock()
  private var _requests: [Subscribers.Demand] = []
  private var _cancels = 0

  var requests: [Subscribers.Demand] { lock.withLock { _requests } }
  var cancels: Int { lock.withLock { _cancels } }

  func request(_ demand: Subscribers.Demand) { lock.withLock { _requests.append(demand) } }
  func cancel() { lock.withLock { _cancels += 1 } }
}
