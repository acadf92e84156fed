import SignalOperators
import StreamCore
import StreamSnail
import Synchronization

// Sendable: `lines` is guarded by its lock.
final class SnailDisposeLog: Sendable {
  private let lines = LockedState<[String]>([])
  var entries: [String] { lines.withLock { $0 } }
  func append(_ line: String) { lines.withLock { $0.append(line) } }
}

/// Counts raw `cancel()` calls, without making them idempotent.
final class SnailCountingCancellable: Cancellable, Sendable {
  let name: String?
  let log: SnailDisposeLog?
  private let count = Atomic(0)

  init(name: String?, log: SnailDisposeLog?) {
    self.name = name
    self.log = log
  }

  var cancels: Int { count.load(ordering: .sequentiallyConsistent) }

  func cancel() {
    count.add(1, ordering: .sequentiallyConsistent)
    if let name { log?.append(name) }
  }
}

final class SnailCountingDisposable: Disposable {
  let name: String
  let log: SnailDisposeLog

  init(name: String, log: SnailDisposeLog) {
    self.name = name
    self.log = log
  }

  func dispose() { log.append(name) }
}

final class SnailClosureDisposable: Disposable {
  let body: @Sendable () -> Void
  init(_ body: @escaping @Sendable () -> Void) { self.body = body }
  func dispose() { body() }
}
