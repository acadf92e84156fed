import FutureKit
import StreamConbini
import StreamCore
import StreamPropagate
import StreamTesting
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

  @Test func waitersCancelledInAnyOrder_leaveRoomForAKeptSinkAndTheRestGetTheResult() {
    let promise = Promise<Int, Never>()
    let future = promise.future
    let recorders = (0..<4).map { _ in RecordingSubscriber<Int, Never>() }
    for recorder in recorders { future.subscribe(recorder) }
    #expect(future.waiterCount == 4)
    recorders[2].cancel()
    recorders[0].cancel()
    #expect(future.waiterCount == 2)
    recorders[3].cancel()
    recorders[1].cancel()
    #expect(future.waiterCount == 0)
    // Nothing waits any more, so the future's own sink is kept in the future again.
    let log = Log()
    let token = future.sink { log.events.append("value \($0)") }
    #expect(future.waiterCount == 1)
    let late = RecordingSubscriber<Int, Never>()
    future.subscribe(late)
    #expect(future.waiterCount == 2)
    promise.resolve(5)
    #expect(log.events == ["value 5"])
    #expect(late.events == [.subscription, .value(5), .completion(.finished)])
    for recorder in recorders { #expect(recorder.events == [.subscription]) }
    withExtendedLifetime(token) {}
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

  // Several sinks, cancellation and release: in the order attached, as `Publisher`'s `sink`.

  @Test func severalSinks_allDeliveredInAttachOrder() {
    let promise = Promise<Int, Never>()
    let log = Log()
    let tokens = (0..<3).map { index in
      promise.future.sink(
        receiveCompletion: { _ in log.events.append("done \(index)") },
        receiveValue: { log.events.append("value \(index) \($0)") }
      )
    }
    #expect(promise.future.waiterCount == 3)
    promise.resolve(8)
    #expect(
      log.events == ["value 0 8", "done 0", "value 1 8", "done 1", "value 2 8", "done 2"]
    )
    #expect(promise.future.waiterCount == 0)
    withExtendedLifetime(tokens) {}
  }

  @Test func callbackRegisteredFirst_isNotifiedBeforeTheSink() {
    let promise = Promise<Int, Never>()
    let log = Log()
    promise.future.onSuccess(.synchronously) { log.events.append("callback \($0)") }
    let token = promise.future.sink { log.events.append("sink \($0)") }
    promise.resolve(2)
    #expect(log.events == ["callback 2", "sink 2"])
    withExtendedLifetime(token) {}
  }

  @Test func firstSinkCancelled_laterSinksStillDeliver_andTheOldTokenCancelsNothingElse() {
    let promise = Promise<Int, Never>()
    let log = Log()
    let first = promise.future.sink { log.events.append("first \($0)") }
    first.cancel()
    let second = promise.future.sink { log.events.append("second \($0)") }
    let third = promise.future.sink { log.events.append("third \($0)") }
    first.cancel()  // a token cancels once; the closures now in the future are another sink's
    #expect(promise.future.waiterCount == 2)
    promise.resolve(6)
    #expect(log.events == ["second 6", "third 6"])
    withExtendedLifetime((second, third)) {}
  }

  @Test func droppingTheToken_cancelsAndReleasesTheClosures() {
    let promise = Promise<Int, Never>()
    weak var weakLog: Log?
    do {
      let log = Log()
      weakLog = log
      _ = promise.future.sink { log.events.append("value \($0)") }
    }
    #expect(weakLog == nil)
    #expect(promise.future.waiterCount == 0)
    promise.resolve(1)
  }

  @Test func cancelFromInsideTheValueClosure_deliversNoCompletion() {
    let promise = Promise<Int, Never>()
    let log = Log()
    final class Box: @unchecked Sendable { var token: AnyCancellable? }
    let box = Box()
    box.token = promise.future.sink(
      receiveCompletion: { _ in log.events.append("finished") },
      receiveValue: { value in
        log.events.append("value \(value)")
        box.token?.cancel()
      }
    )
    promise.resolve(3)
    // As Combine: nothing reaches a cancelled subscriber, not even the completion.
    #expect(log.events == ["value 3"])
  }

  // The first sink of a pending future is kept by the future itself; later ones subscribe.

  @Test func firstSinkAndASubscriber_failureReachesBothInOrder() {
    let promise = Promise<Int, Failure>()
    let log = Log()
    let token = promise.future.sink(
      receiveCompletion: { log.events.append("sink \($0)") },
      receiveValue: { log.events.append("sink value \($0)") }
    )
    let recorder = RecordingSubscriber<Int, Failure>()
    promise.future.subscribe(recorder)
    #expect(promise.future.waiterCount == 2)
    promise.reject(Failure())
    #expect(log.events == ["sink \(Subscribers.Completion<Failure>.failure(Failure()))"])
    #expect(recorder.values.isEmpty)
    #expect(recorder.completion != nil)
    #expect(promise.future.waiterCount == 0)
    withExtendedLifetime(token) {}
  }

  @Test func cancelAfterDelivery_changesNothingForLaterSinks() {
    let promise = Promise<Int, Never>()
    let log = Log()
    let first = promise.future.sink(
      receiveCompletion: { _ in log.events.append("first done") },
      receiveValue: { log.events.append("first \($0)") }
    )
    promise.resolve(5)
    first.cancel()
    let second = promise.future.sink(
      receiveCompletion: { _ in log.events.append("second done") },
      receiveValue: { log.events.append("second \($0)") }
    )
    #expect(log.events == ["first 5", "first done", "second 5", "second done"])
    withExtendedLifetime(second) {}
  }

  @Test func sinkInsideTheFirstSinksValue_isDeliveredAtOnce() {
    let promise = Promise<Int, Never>()
    let log = Log()
    final class Box: @unchecked Sendable { var token: AnyCancellable? }
    let box = Box()
    let first = promise.future.sink(
      receiveCompletion: { _ in log.events.append("first done") },
      receiveValue: { value in
        log.events.append("first \(value)")
        box.token = promise.future.sink { log.events.append("inner \($0)") }
      }
    )
    promise.resolve(7)
    #expect(log.events == ["first 7", "inner 7", "first done"])
    withExtendedLifetime(first) {}
  }
}
