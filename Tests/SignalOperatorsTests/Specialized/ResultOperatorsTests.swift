import SignalOperators
import StreamCore
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct ResultOperatorsTests {
  typealias Source = Result<Int, TestError>.Publisher

  let success = Source(4)
  let failure = Source(.failure(TestError(code: 1)))

  // MARK: Transforming

  @Test func map_returnsResultPublisherOfTheTransformedValue() {
    let p: Result<String, TestError>.Publisher = success.map { "\($0)" }
    #expect(specializedRecord(p).events == [.subscription, .value("4"), .completion(.finished)])
  }

  @Test func map_failure_passesTheFailureWithoutCallingTransform() {
    let p = failure.map { _ -> Int in
      Issue.record("called")
      return 0
    }
    #expect(
      specializedRecord(p).events == [.subscription, .completion(.failure(TestError(code: 1)))]
    )
  }

  @Test func map_waitsForDemand() {
    let recorder = specializedRecord(success.map { $0 + 1 }, initialDemand: nil)
    #expect(recorder.events == [.subscription])
    recorder.request(.max(1))
    #expect(recorder.events == [.subscription, .value(5), .completion(.finished)])
  }

  @Test func tryMap_publishesTheValueTheThrownErrorOrTheFailure() {
    let p: Result<Int, any Error>.Publisher = success.tryMap { $0 * 2 }
    #expect(specializedOutcome(p).values == [8])
    #expect(specializedOutcome(p).finished == true)
    #expect(
      specializedThrown(success.tryMap { _ -> Int in throw TestError(code: 9) })
        == TestError(code: 9)
    )
    #expect(specializedThrown(failure.tryMap { $0 }) == TestError(code: 1))
  }

  @Test func mapError_transformsOnlyTheFailure() {
    struct Other: Error, Equatable { var code: Int }
    let p: Result<Int, Other>.Publisher = failure.mapError { Other(code: $0.code + 1) }
    #expect(p.result == .failure(Other(code: 2)))
    #expect(success.mapError { Other(code: $0.code) }.result == .success(4))
  }

  @Test func replaceError_returnsNeverFailingResultPublisher() {
    let p: Result<Int, Never>.Publisher = failure.replaceError(with: 0)
    #expect(specializedRecord(p).events == [.subscription, .value(0), .completion(.finished)])
    #expect(success.replaceError(with: 0).result == .success(4))
  }

  @Test func setFailureType_returnsResultPublisherWithTheNewFailure() {
    let p: Result<Int, TestError>.Publisher = Result<Int, Never>.Publisher(3)
      .setFailureType(to: TestError.self)
    #expect(p.result == .success(3))
  }

  @Test func ignoreOutput_ofNeverFailing_returnsEmpty() {
    let p: Empty<Int, Never> = Result<Int, Never>.Publisher(3).ignoreOutput()
    #expect(specializedRecord(p).events == [.subscription, .completion(.finished)])
  }

  /// Combine's specialisation finishes even for a failure, which it drops (OpenCombine's
  /// `ResultPublisherTests.testIgnoreOutputOperatorSpecialization`, verified against Combine).
  @Test func ignoreOutput_ofAFailure_finishes() {
    let p: Empty<Int, TestError> = failure.ignoreOutput()
    #expect(specializedRecord(p).events == [.subscription, .completion(.finished)])
  }

  @Test func operatorsWithoutEffect_returnSelf() {
    for source in [success, failure] {
      let results: [Source] = [
        source.replaceEmpty(with: 0), source.retry(3), source.removeDuplicates(),
        source.removeDuplicates { _, _ in
          Issue.record("called")
          return true
        },
        source.first(), source.last(), source.min(), source.max(),
        source.min { _, _ in
          Issue.record("called")
          return true
        },
        source.max { _, _ in
          Issue.record("called")
          return true
        },
      ]
      #expect(results.allSatisfy { $0 == source })
    }
  }

  @Test func tryComparingForms_compareTheValueWithItselfOnce_asCombineDoes() {
    var calls = 0
    let compare: (Int, Int) throws -> Bool = {
      calls += 1
      return $0 < $1
    }
    let kept = [
      success.tryRemoveDuplicates(by: compare), success.tryMin(by: compare),
      success.tryMax(by: compare),
    ]
    #expect(calls == 3)
    for p in kept {
      #expect(specializedOutcome(p).values == [4])
      #expect(specializedOutcome(p).finished == true)
    }
    let thrown: [Result<Int, any Error>.Publisher] = [
      success.tryRemoveDuplicates { _, _ in throw TestError(code: 5) },
      success.tryMin { _, _ in throw TestError(code: 5) },
      success.tryMax { _, _ in throw TestError(code: 5) },
    ]
    for p in thrown {
      #expect(specializedThrown(p) == TestError(code: 5))
    }
    #expect(specializedThrown(failure.tryMin(by: compare)) == TestError(code: 1))
    #expect(specializedThrown(failure.tryRemoveDuplicates(by: compare)) == TestError(code: 1))
    #expect(calls == 3)  // a failure is not compared
  }

  // MARK: Reducing

  @Test func collectAndCount_returnResultPublisher() {
    let collected: Result<[Int], TestError>.Publisher = success.collect()
    let counted: Result<Int, TestError>.Publisher = success.count()
    #expect(collected.result == .success([4]))
    #expect(counted.result == .success(1))
    #expect(failure.collect().result == .failure(TestError(code: 1)))
    #expect(failure.count().result == .failure(TestError(code: 1)))
  }

  @Test func containsAndAllSatisfy_returnResultPublisherOfTheAnswer() {
    let contains: Result<Bool, TestError>.Publisher = success.contains(4)
    let containsWhere: Result<Bool, TestError>.Publisher = success.contains { $0 > 5 }
    let all: Result<Bool, TestError>.Publisher = success.allSatisfy { $0 > 3 }
    #expect(contains.result == .success(true))
    #expect(containsWhere.result == .success(false))
    #expect(all.result == .success(true))
    #expect(failure.contains(4).result == .failure(TestError(code: 1)))
    #expect(specializedRecord(all).events == [.subscription, .value(true), .completion(.finished)])
  }

  @Test func tryContainsAndTryAllSatisfy_publishTheAnswerOrAnError() {
    let contains: Result<Bool, any Error>.Publisher = success.tryContains { $0 == 4 }
    let all: Result<Bool, any Error>.Publisher = success.tryAllSatisfy { $0 > 5 }
    #expect(specializedOutcome(contains).values == [true])
    #expect(specializedOutcome(all).values == [false])
    #expect(
      specializedThrown(success.tryContains { _ in throw TestError(code: 5) }) == TestError(code: 5)
    )
    #expect(
      specializedThrown(success.tryAllSatisfy { _ in throw TestError(code: 6) })
        == TestError(code: 6)
    )
    #expect(specializedThrown(failure.tryAllSatisfy { _ in true }) == TestError(code: 1))
  }

  @Test func reduceAndScan_returnResultPublisherOfOneStep() {
    let reduced: Result<Int, TestError>.Publisher = success.reduce(10, +)
    let scanned: Result<String, TestError>.Publisher = success.scan("x") { $0 + "\($1)" }
    #expect(reduced.result == .success(14))
    #expect(scanned.result == .success("x4"))
    #expect(failure.reduce(10, +).result == .failure(TestError(code: 1)))
  }

  @Test func tryReduceAndTryScan_publishTheResultOrAnError() {
    let reduced: Result<Int, any Error>.Publisher = success.tryReduce(10, +)
    let scanned: Result<Int, any Error>.Publisher = success.tryScan(2, *)
    #expect(specializedOutcome(reduced).values == [14])
    #expect(specializedOutcome(scanned).values == [8])
    #expect(
      specializedThrown(success.tryReduce(0) { _, _ in throw TestError(code: 7) })
        == TestError(code: 7)
    )
    #expect(
      specializedThrown(success.tryScan(0) { _, _ -> Int in throw TestError(code: 8) })
        == TestError(code: 8)
    )
    #expect(specializedThrown(failure.tryScan(0, +)) == TestError(code: 1))
  }

  // MARK: Chains and conformance

  @Test func chain_staysASimplePublisher() {
    let p = success.map { $0 * 2 }.collect().count().replaceError(with: 0)
    #expect(type(of: p) == Result<Int, Never>.Publisher.self)
    #expect(p.result == .success(1))
  }

  @Test func returnedPublishers_conform() {
    PublisherConformance(
      elements: 1,
      makePublisher: { Source(1).map { $0 * 2 } },
      makeFailingPublisher: { Source(.failure(TestError())).map { $0 * 2 } }
    )
    .run().expectAllPassed(skipping: ["SC-1.05", "SC-3.02"])
    PublisherConformance(
      elements: 1,
      makePublisher: { Source(1).tryMap { $0 * 2 } },
      makeFailingPublisher: { Source(1).tryMap { _ in throw TestError() } }
    )
    .run().expectAllPassed(skipping: ["SC-1.05", "SC-3.02"])
    PublisherConformance(
      elements: 1,
      makePublisher: { Source(.failure(TestError())).replaceError(with: 0) }
    )
    .run().expectAllPassed(skipping: ["SC-1.05", "SC-2.04", "SC-3.02"])
  }
}
