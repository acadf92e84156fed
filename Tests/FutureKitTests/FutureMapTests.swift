import FutureKit
import StreamConbini
import StreamCore
import StreamPropagate
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct FutureMapTests {
  @Test func mapResult_transformsValueAndFailure() {
    let fromValue: Future<String, FutureTestError> = Future<Int, FutureTestError>.of(2)
      .mapResult { result in result.map { "\($0)" } }
    let fromFailure: Future<String, FutureTestError> = Future<Int, FutureTestError>.error(.first)
      .mapResult { _ in .failure(.second) }
    #expect(fromValue.resolvedValue == "2")
    #expect(fromFailure.error == .second)
  }

  @Test func mapResult_completesWhenTheSourceCompletes() {
    let promise = Promise<Int, FutureTestError>()
    let mapped = promise.future.mapResult { $0.map { $0 * 10 } }
    #expect(!mapped.isComplete)
    promise.resolve(4)
    #expect(mapped.resolvedValue == 40)
  }

  @Test func mapValue_transformsTheValue() {
    #expect(Future<Int, FutureTestError>.of(3).mapValue { $0 + 1 }.resolvedValue == 4)
  }

  @Test func mapValue_passesFailuresThrough() {
    let calls = LockedState(0)
    let mapped = Future<Int, FutureTestError>.error(.first).mapValue { value -> Int in
      calls.withLock { $0 += 1 }
      return value
    }
    #expect(mapped.error == .first)
    #expect(calls.withLock { $0 } == 0)
  }

  @Test func mapError_transformsTheFailure() {
    let mapped: Future<Int, MappedError> = Future<Int, FutureTestError>.error(.second)
      .mapError { MappedError(wrapped: $0) }
    #expect(mapped.error == MappedError(wrapped: .second))
  }

  @Test func mapError_passesValuesThrough() {
    let mapped = Future<Int, FutureTestError>.of(1).mapError { MappedError(wrapped: $0) }
    #expect(mapped.resolvedValue == 1)
  }

  @Test func splitValueMap_turnsAValueIntoAFailure() {
    let checked = Future<Int, FutureTestError>.of(-1).splitValueMap { value in
      value >= 0 ? .success(value) : .failure(.third)
    }
    #expect(checked.error == .third)
  }

  @Test func splitValueMap_keepsAValue() {
    let checked = Future<Int, FutureTestError>.of(5).splitValueMap { .success("\($0)") }
    #expect(checked.resolvedValue == "5")
  }

  @Test func splitErrorMap_turnsAFailureIntoAValue() {
    let recovered: Future<Int, MappedError> = Future<Int, FutureTestError>.error(.first)
      .splitErrorMap { _ in .success(0) }
    #expect(recovered.resolvedValue == 0)
  }

  @Test func splitErrorMap_mapsAFailure() {
    let mapped: Future<Int, MappedError> = Future<Int, FutureTestError>.error(.first)
      .splitErrorMap { .failure(MappedError(wrapped: $0)) }
    #expect(mapped.error == MappedError(wrapped: .first))
  }

  @Test func mapToVoid_keepsOnlyTheOutcome() {
    let done: Future<Void, FutureTestError> = Future<Int, FutureTestError>.of(9).mapToVoid()
    let failed = Future<Int, FutureTestError>.error(.first).mapToVoid()
    #expect(done.succeeded)
    #expect(failed.error == .first)
  }

  @Test func successOnly_succeedsWithTheValue() {
    let values: Future<Int, Never> = Future<Int, FutureTestError>.of(2).successOnly()
    #expect(values.resolvedValue == 2)
  }

  @Test func successOnly_neverCompletesOnFailure() {
    let promise = Promise<Int, FutureTestError>()
    let values = promise.future.successOnly()
    promise.reject(.first)
    #expect(!values.isComplete)
  }

  @Test func compactMap_unwrapsAValue() {
    let unwrapped: Future<Int, FutureTestError> = Future<Int?, FutureTestError>.of(3).compactMap()
    #expect(unwrapped.resolvedValue == 3)
  }

  @Test func compactMapOfNil_neverCompletes() {
    let promise = Promise<Int?, FutureTestError>()
    let unwrapped: Future<Int, FutureTestError> = promise.future.compactMap()
    promise.resolve(nil)
    #expect(promise.future.isComplete)
    #expect(!unwrapped.isComplete)
  }

  @Test func compactMap_passesFailuresThrough() {
    let unwrapped: Future<Int, FutureTestError> = Future<Int?, FutureTestError>.error(.second)
      .compactMap()
    #expect(unwrapped.error == .second)
  }

  @Test func compactMapWithFallback_failsOnNil() {
    let unwrapped: Future<Int, MappedError> = Future<Int?, FutureTestError>.of(nil)
      .compactMap(fallbackError: MappedError(wrapped: .third)) { MappedError(wrapped: $0) }
    #expect(unwrapped.error == MappedError(wrapped: .third))
  }

  @Test func compactMapWithFallback_unwrapsAValue() {
    let unwrapped: Future<Int, MappedError> = Future<Int?, FutureTestError>.of(6)
      .compactMap(fallbackError: MappedError(wrapped: .third)) { MappedError(wrapped: $0) }
    #expect(unwrapped.resolvedValue == 6)
  }

  @Test func compactMapWithFallback_mapsFailures() {
    let unwrapped: Future<Int, MappedError> = Future<Int?, FutureTestError>.error(.first)
      .compactMap(fallbackError: MappedError(wrapped: .third)) { MappedError(wrapped: $0) }
    #expect(unwrapped.error == MappedError(wrapped: .first))
  }

  @Test func derivedFuture_isAPublisherToo() {
    let recorder = RecordingSubscriber<Int, FutureTestError>()
    Future<Int, FutureTestError>.of(1).mapValue { $0 * 2 }.subscribe(recorder)
    #expect(recorder.events == [.subscription, .value(2), .completion(.finished)])
  }
}

/// A second failure type, to check error mapping.
private struct MappedError: Error, Equatable {
  let wrapped: FutureTestError
}
