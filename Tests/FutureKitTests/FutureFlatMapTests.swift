import FutureKit
import StreamConbini
import StreamCore
import StreamPropagate
import Testing

@Suite(.timeLimit(.minutes(5))) struct FutureFlatMapTests {
  @Test func flatMap_completesWithTheNextFuture() {
    let first = Promise<Int, FutureTestError>()
    let second = Promise<String, FutureTestError>()
    let chained = first.future.flatMap { result -> Future<String, FutureTestError> in
      #expect((try? result.get()) == 1)
      return second.future
    }
    first.resolve(1)
    #expect(!chained.isComplete)
    second.resolve("two")
    #expect(chained.resolvedValue == "two")
  }

  @Test func flatMap_seesFailuresToo() {
    let chained = Future<Int, FutureTestError>.error(.first).flatMap { result in
      guard case .failure(.first) = result else { return Future<String, Never>.of("no") }
      return Future<String, Never>.of("recovered")
    }
    #expect(chained.resolvedValue == "recovered")
  }

  @Test func flatMapSuccess_chainsOnValues() {
    let chained = Future<Int, FutureTestError>.of(2)
      .flatMapSuccess { Future<Int, FutureTestError>.of($0 * 3) }
      .flatMapSuccess { Future<String, FutureTestError>.of("\($0)") }
    #expect(chained.resolvedValue == "6")
  }

  @Test func flatMapSuccess_passesFailuresThroughWithoutCallingTheTransform() {
    let calls = LockedState(0)
    let chained = Future<Int, FutureTestError>.error(.second).flatMapSuccess { value in
      calls.withLock { $0 += 1 }
      return Future<Int, FutureTestError>.of(value)
    }
    #expect(chained.error == .second)
    #expect(calls.withLock { $0 } == 0)
  }

  @Test func flatMapSuccess_failsWhenTheNextFutureFails() {
    let chained = Future<Int, FutureTestError>.of(1).flatMapSuccess { _ in
      Future<Int, FutureTestError>.error(.third)
    }
    #expect(chained.error == .third)
  }

  @Test func flatMapError_recoversWithTheNextFuture() {
    let chained: Future<Int, Never> = Future<Int, FutureTestError>.error(.first)
      .flatMapError { _ in Future<Int, Never>.of(0) }
    #expect(chained.resolvedValue == 0)
  }

  @Test func flatMapError_passesValuesThrough() {
    let calls = LockedState(0)
    let chained: Future<Int, Never> = Future<Int, FutureTestError>.of(5).flatMapError { _ in
      calls.withLock { $0 += 1 }
      return Future<Int, Never>.of(0)
    }
    #expect(chained.resolvedValue == 5)
    #expect(calls.withLock { $0 } == 0)
  }

  @Test func bindTo_forwardsTheResultAndReturnsTheSameFuture() {
    let source = Promise<Int, FutureTestError>()
    let target = Promise<Int, FutureTestError>()
    #expect(source.future.bindTo(target) === source.future)
    source.reject(.second)
    #expect(target.future.error == .second)
  }

  @Test func bindTo_losesToAnEarlierCompletion() {
    let target = Promise<Int, FutureTestError>()
    target.resolve(1)
    Future<Int, FutureTestError>.of(2).bindTo(target)
    #expect(target.future.resolvedValue == 1)
  }

  @Test func longChain_completesOnTheResolvingCall() {
    let promise = Promise<Int, Never>()
    var future = promise.future
    for _ in 0..<1_000 {
      future = future.mapValue { $0 + 1 }
    }
    promise.resolve(0)
    #expect(future.resolvedValue == 1_000)
  }
}
