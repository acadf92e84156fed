import FutureKit
import StreamCore
import Testing

/// `Future`'s own `sink` overloads, which attach the closures without a `Subscribers.Sink`:
/// they must behave exactly as `Publisher`'s `sink`.
@Suite(.timeLimit(.minutes(5))) struct FutureSinkTests {
  /// Collects what the closures receive; a class so that closures can share it.
  final class Log: @unchecked Sendable {
    var events: [String] = []
  }

  struct Failure: Error, Equatable {}

  @Test func resolvedLater_deliversValueThenFinished() {
    let promise = Promise<Int, Failure>()
    let log = Log()
    let token = promise.future.sink(
      receiveCompletion: { log.events.append("completion \($0)") },
      receiveValue: { log.events.append("value \($0)") }
    )
    #expect(log.events.isEmpty)
    promise.resolve(4)
    #expect(log.events == ["value 4", "completion finished"])
    withExtendedLifetime(token) {}
  }

  @Test func alreadyResolved_deliversAtOnce() {
    let future = Future<Int, Never> { $0(.success(5)) }
    let log = Log()
    let token = future.sink { log.events.append("value \($0)") }
    #expect(log.events == ["value 5"])
    withExtendedLifetime(token) {}
  }

  @Test func failure_deliversTheFailure() {
    let promise = Promise<Int, Failure>()
    let log = Log()
    let token = promise.future.sink(
      receiveCompletion: { log.events.append("completion \($0)") },
      receiveValue: { log.events.append("value \($0)") }
    )
    promise.reject(Failure())
    #expect(log.events == ["completion \(Subscribers.Completion<Failure>.failure(Failure()))"])
    withExtendedLifetime(token) {}
  }

  @Test func cancelBeforeResolution_deliversNothingAndWithdraws() {
    let promise = Promise<Int, Never>()
    let log = Log()
    let token = promise.future.sink { log.events.append("value \($0)") }
    #expect(promise.future.waiterCount == 1)
    token.cancel()
    #expect(promise.future.waiterCount == 0)
    promise.resolve(1)
    #expect(log.events.isEmpty)
  }

  @Test func afterResolution_theClosuresAreReleased() {
    let promise = Promise<Int, Never>()
    weak var weakLog: Log?
    let token: AnyCancellable
    do {
      let log = Log()
      weakLog = log
      token = promise.future.sink { log.events.append("value \($0)") }
    }
    #expect(weakLog != nil)
    promise.resolve(1)
    #expect(weakLog == nil)
    withExtendedLifetime(token) {}
  }
}
