import Dispatch
import SignalOperators
import StreamCore
import Synchronization
import Testing

/// The engine of `catch`, `retry` and `concatenate` (`SerialUpstreams`) with values from several
/// threads at once, while other threads request, cancel or end the live stage. A value takes one
/// lock round trip (the stage's number and the demand checked and counted, the downstream taken
/// out) and is delivered after it; these tests check that, so taken, values never overlap, never
/// go beyond demand and never come after the end. Run under `--sanitize=thread` as well.
@Suite(.timeLimit(.minutes(5))) struct SerialUpstreamsStressTests {
  static let threads = 4
  static let perThread = 3_000

  static func expected(_ count: Int = perThread) -> [Int] {
    (0..<threads).flatMap { thread in (0..<count).map { thread * 100_000 + $0 } }
  }

  @Test func catch_unlimited_sendsFromEveryThread_nothingLostNothingOverlaps() {
    let checker = DemandChecker(initialDemand: .unlimited)
    let subject = PassthroughSubject<Int, TestError>()
    subject.catch { _ in Empty<Int, Never>() }.subscribe(checker)
    DispatchQueue.concurrentPerform(iterations: Self.threads + 1) { index in
      guard index < Self.threads else {
        for _ in 0..<500 { checker.request(.unlimited) }
        return
      }
      for value in 0..<Self.perThread { subject.send(index * 100_000 + value) }
    }
    subject.send(completion: .finished)
    #expect(checker.values.sorted() == Self.expected())
    #expect(checker.completions == 1)
    #expect(checker.problems.isEmpty)
  }

  @Test func retry_limitedDemand_requestsFromAnotherThread_noValueBeyondDemand() {
    let checker = DemandChecker(initialDemand: .max(5), perValue: .max(1))
    let subject = PassthroughSubject<Int, Never>()
    subject.retry(2).subscribe(checker)
    let sent = Atomic<Int>(0)
    DispatchQueue.concurrentPerform(iterations: Self.threads + 1) { index in
      guard index < Self.threads else {
        for round in 0..<200 { checker.request(.max(round % 3 + 1)) }
        return
      }
      for value in 0..<Self.perThread {
        subject.send(index * 100_000 + value)
        sent.add(1, ordering: .relaxed)
      }
    }
    // A subject drops a value its subscriber has no demand for: some are missing, none beyond
    // demand, none twice.
    let values = checker.values
    #expect(Set(values).count == values.count)
    #expect(values.count <= sent.load(ordering: .relaxed))
    #expect(values.count >= 5)
    checker.request(.unlimited)
    subject.send(-1)
    #expect(checker.values.last == -1)
    subject.send(completion: .finished)
    #expect(checker.completions == 1)
    #expect(checker.problems.isEmpty)
  }

  @Test func catch_cancelWhileSending_nothingAfterTheSendersAreDone() {
    let checker = DemandChecker(initialDemand: .unlimited)
    let subject = PassthroughSubject<Int, TestError>()
    subject.catch { _ in Empty<Int, Never>() }.subscribe(checker)
    DispatchQueue.concurrentPerform(iterations: Self.threads + 1) { index in
      guard index < Self.threads else {
        for _ in 0..<200 { checker.request(.max(1)) }
        checker.cancel()
        return
      }
      for value in 0..<Self.perThread { subject.send(index * 100_000 + value) }
    }
    let count = checker.values.count
    #expect(count <= Self.threads * Self.perThread)
    for value in 0..<100 { subject.send(value) }
    subject.send(completion: .finished)
    #expect(checker.values.count == count)
    #expect(checker.completions == 0)
    #expect(checker.problems.isEmpty)
  }

  @Test func catch_failureWhileSending_fallbackTakesOverWithoutOverlap() {
    let checker = DemandChecker(initialDemand: .unlimited)
    let subject = PassthroughSubject<Int, TestError>()
    let fallback = PassthroughSubject<Int, Never>()
    subject.catch { _ in fallback }.subscribe(checker)
    DispatchQueue.concurrentPerform(iterations: Self.threads + 1) { index in
      guard index < Self.threads else {
        subject.send(completion: .failure(TestError(code: 1)))
        return
      }
      for value in 0..<Self.perThread {
        subject.send(index * 100_000 + value)
        fallback.send(1_000_000 + index * 100_000 + value)
      }
    }
    let values = checker.values
    #expect(Set(values).count == values.count)
    // Once the fallback's values start, the failed subject's stop.
    if let switched = values.firstIndex(where: { $0 >= 1_000_000 }) {
      #expect(values[switched...].allSatisfy { $0 >= 1_000_000 })
    }
    fallback.send(-1)
    #expect(checker.values.last == -1)
    fallback.send(completion: .finished)
    #expect(checker.completions == 1)
    #expect(checker.problems.isEmpty)
  }
}
