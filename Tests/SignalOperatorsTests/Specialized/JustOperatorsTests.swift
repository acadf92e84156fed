import SignalOperators
import StreamCore
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct JustOperatorsTests {

  // MARK: Transforming

  @Test func map_returnsJustOfTheTransformedValue() {
    let p: Just<String> = Just(1).map { "\($0 + 1)" }
    #expect(p.output == "2")
    #expect(specializedRecord(p).events == [.subscription, .value("2"), .completion(.finished)])
  }

  @Test func map_waitsForDemand() {
    let recorder = specializedRecord(Just(1).map { $0 * 3 }, initialDemand: nil)
    #expect(recorder.events == [.subscription])
    recorder.request(.max(1))
    #expect(recorder.events == [.subscription, .value(3), .completion(.finished)])
  }

  @Test func tryMap_returnsResultPublisherOfTheValue() {
    let p: Result<Int, any Error>.Publisher = Just(1).tryMap { $0 + 1 }
    #expect(specializedOutcome(p).values == [2])
    #expect(specializedOutcome(p).finished == true)
  }

  @Test func tryMap_throwing_failsWithTheError() {
    let p = Just(1).tryMap { _ -> Int in throw TestError(code: 4) }
    #expect(type(of: p) == Result<Int, any Error>.Publisher.self)
    #expect(specializedOutcome(p).values.isEmpty)
    #expect(specializedThrown(p) == TestError(code: 4))
  }

  @Test func compactMap_returnsOptionalPublisher() {
    let some: Optional<Int>.Publisher = Just("42").compactMap { Int($0) }
    let none: Optional<Int>.Publisher = Just("x").compactMap { Int($0) }
    #expect(specializedRecord(some).events == [.subscription, .value(42), .completion(.finished)])
    #expect(specializedRecord(none).events == [.subscription, .completion(.finished)])
  }

  @Test func filter_rejected_finishesWithoutValues() {
    let p: Optional<Int>.Publisher = Just(1).filter { _ in false }
    #expect(specializedRecord(p).events == [.subscription, .completion(.finished)])
    let kept = Just(2).filter { $0 == 2 }
    #expect(specializedRecord(kept).events == [.subscription, .value(2), .completion(.finished)])
  }

  @Test func ignoreOutput_returnsEmpty() {
    let p: Empty<Int, Never> = Just(1).ignoreOutput()
    #expect(p.completeImmediately)
    #expect(specializedRecord(p).events == [.subscription, .completion(.finished)])
  }

  @Test func setFailureType_returnsResultPublisherWithTheNewFailure() {
    let p: Result<Int, TestError>.Publisher = Just(5).setFailureType(to: TestError.self)
    #expect(p.result == .success(5))
    #expect(specializedRecord(p).events == [.subscription, .value(5), .completion(.finished)])
  }

  @Test func mapError_returnsResultPublisherWithTheNewFailure() {
    let p: Result<Int, TestError>.Publisher = Just(5).mapError { _ -> TestError in }
    #expect(specializedRecord(p).events == [.subscription, .value(5), .completion(.finished)])
  }

  @Test func neverFailingOperators_returnSelf() {
    let just = Just(7)
    let results: [Just<Int>] = [
      just.replaceError(with: 0), just.replaceEmpty(with: 0), just.retry(2),
      just.removeDuplicates(),
      just.removeDuplicates { _, _ in
        Issue.record("called")
        return true
      },
      just.first(), just.last(), just.min(), just.max(),
      just.min { _, _ in
        Issue.record("called")
        return true
      },
      just.max { _, _ in
        Issue.record("called")
        return true
      },
    ]
    #expect(results.allSatisfy { $0 == just })
    #expect(specializedRecord(just.retry(1)).values == [7])
  }

  @Test func tryRemoveDuplicates_comparesTheValueWithItselfOnce_asCombineDoes() {
    var calls: [[Int]] = []
    let kept: Result<Int, any Error>.Publisher = Just(7).tryRemoveDuplicates {
      calls.append([$0, $1])
      return false
    }
    #expect(specializedOutcome(kept).values == [7])
    #expect(specializedOutcome(kept).finished == true)
    #expect(calls == [[7, 7]])
    let thrown: Result<Int, any Error>.Publisher = Just(7).tryRemoveDuplicates { _, _ in
      throw TestError(code: 2)
    }
    #expect(specializedThrown(thrown) == TestError(code: 2))
  }

  // MARK: Selecting

  @Test func firstAndLastWhere_returnOptionalPublisher() {
    let hit: Optional<Int>.Publisher = Just(4).first { $0 > 3 }
    let miss: Optional<Int>.Publisher = Just(4).last { $0 > 5 }
    #expect(hit.output == 4)
    #expect(Just(4).last { $0 == 4 }.output == 4)
    #expect(specializedRecord(miss).events == [.subscription, .completion(.finished)])
  }

  @Test func dropFirst_dropsTheValueUnlessCountIsZero() {
    let dropped: Optional<Int>.Publisher = Just(1).dropFirst()
    #expect(dropped.output == nil)
    #expect(Just(1).dropFirst(0).output == 1)
    #expect(Just(1).dropFirst(5).output == nil)
    #expect(specializedRecord(dropped).events == [.subscription, .completion(.finished)])
  }

  @Test func dropWhile_dropsTheValueWhenThePredicateHolds() {
    let p: Optional<Int>.Publisher = Just(1).drop { $0 < 5 }
    #expect(p.output == nil)
    #expect(Just(9).drop { $0 < 5 }.output == 9)
  }

  @Test func outputAt_keepsOnlyIndexZero() {
    let p: Optional<String>.Publisher = Just("a").output(at: 0)
    #expect(p.output == "a")
    #expect(Just("a").output(at: 1).output == nil)
  }

  @Test func outputIn_keepsTheValueWhenTheRangeStartsAtZero_asCombinesSpecialisationDoes() {
    let p: Optional<String>.Publisher = Just("a").output(in: 0..<3)
    #expect(p.output == "a")
    #expect(Just("a").output(in: ...0).output == "a")
    #expect(Just("a").output(in: 0..<0).output == "a")  // Combine's quirk (FB6169621)
    #expect(Just("a").output(in: 0..<Int.max).output == "a")
    #expect(Just("a").output(in: 1...).output == nil)
    #expect(Just("a").output(in: -10..<10).output == nil)  // no trap, as in Combine
    #expect(Just("a").output(in: (-10)...).output == nil)
  }

  @Test func prefix_keepsTheValueUnlessMaxLengthIsZero() {
    let p: Optional<Int>.Publisher = Just(1).prefix(0)
    #expect(p.output == nil)
    #expect(Just(1).prefix(2).output == 1)
    #expect(Just(1).prefix { $0 < 5 }.output == 1)
    #expect(Just(9).prefix { $0 < 5 }.output == nil)
  }

  @Test func negativeCount_traps() async {
    let trap1 = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      _ = Just(1).dropFirst(-1)
    }
    expectTrap(trap1, "dropFirst: count must not be negative")
    let trap2 = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      _ = Just(1).prefix(-1)
    }
    expectTrap(trap2, "prefix: maxLength must not be negative")
    let trap3 = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      _ = Just(1).output(at: -1)
    }
    expectTrap(trap3, "output(at:): index must not be negative")
  }

  // MARK: Reducing

  @Test func collect_returnsJustOfOneElementArray() {
    let p: Just<[Int]> = Just(1).collect()
    #expect(specializedRecord(p).events == [.subscription, .value([1]), .completion(.finished)])
  }

  @Test func count_returnsJustOfOne() {
    let p: Just<Int> = Just("a").count()
    #expect(specializedRecord(p).events == [.subscription, .value(1), .completion(.finished)])
  }

  @Test func containsAndAllSatisfy_returnJustOfTheAnswer() {
    let contains: Just<Bool> = Just(3).contains(3)
    let containsWhere: Just<Bool> = Just(3).contains { $0 > 5 }
    let all: Just<Bool> = Just(3).allSatisfy { $0 > 1 }
    #expect(contains.output)
    #expect(!containsWhere.output)
    #expect(all.output)
    #expect(!Just(3).contains(4).output)
    #expect(specializedRecord(all).events == [.subscription, .value(true), .completion(.finished)])
  }

  @Test func tryContainsAndTryAllSatisfy_publishTheAnswerOrTheError() {
    let contains: Result<Bool, any Error>.Publisher = Just(3).tryContains { $0 == 3 }
    let all: Result<Bool, any Error>.Publisher = Just(3).tryAllSatisfy { $0 > 5 }
    #expect(specializedOutcome(contains).values == [true])
    #expect(specializedOutcome(all).values == [false])
    #expect(
      specializedThrown(Just(3).tryContains { _ in throw TestError(code: 1) }) == TestError(code: 1)
    )
    #expect(
      specializedThrown(Just(3).tryAllSatisfy { _ in throw TestError(code: 2) })
        == TestError(code: 2)
    )
  }

  @Test func reduceAndScan_returnResultPublisherOfOneStep() {
    let reduced: Result<Int, Never>.Publisher = Just(2).reduce(10, +)
    let scanned: Result<String, Never>.Publisher = Just(2).scan("x") { $0 + "\($1)" }
    #expect(
      specializedRecord(reduced).events == [.subscription, .value(12), .completion(.finished)]
    )
    #expect(specializedRecord(scanned).values == ["x2"])
  }

  @Test func tryReduceAndTryScan_publishTheResultOrTheError() {
    let reduced: Result<Int, any Error>.Publisher = Just(2).tryReduce(10, +)
    let scanned: Result<Int, any Error>.Publisher = Just(2).tryScan(1, *)
    #expect(specializedOutcome(reduced).values == [12])
    #expect(specializedOutcome(scanned).values == [2])
    #expect(
      specializedThrown(Just(2).tryReduce(0) { _, _ in throw TestError(code: 3) })
        == TestError(code: 3)
    )
    let failedScan = Just(2).tryScan(0) { _, _ -> Int in throw TestError(code: 5) }
    #expect(specializedThrown(failedScan) == TestError(code: 5))
    #expect(specializedOutcome(failedScan).values.isEmpty)
  }

  @Test func appendAndPrepend_returnSequencePublisher() {
    let appended: Publishers.Sequence<[Int], Never> = Just(1).append(2, 3)
    let appendedSequence: Publishers.Sequence<[Int], Never> = Just(1).append(2...3)
    let prepended: Publishers.Sequence<[Int], Never> = Just(3).prepend(1, 2)
    let prependedSequence: Publishers.Sequence<[Int], Never> = Just(3).prepend([1, 2])
    #expect(appended.sequence == [1, 2, 3])
    #expect(appendedSequence.sequence == [1, 2, 3])
    #expect(prepended.sequence == [1, 2, 3])
    #expect(prependedSequence.sequence == [1, 2, 3])
    #expect(
      specializedRecord(appended).events == [
        .subscription, .value(1), .value(2), .value(3), .completion(.finished),
      ]
    )
  }

  // MARK: Chains and conformance

  @Test func chain_staysASimplePublisher() {
    let p = Just(1).map { $0 + 1 }.collect().map { $0.count }
    #expect(type(of: p) == Just<Int>.self)
    #expect(p.output == 1)
  }

  @Test func returnedPublishers_conform() {
    PublisherConformance(elements: 1, makePublisher: { Just(1).map { $0 * 2 } })
      .run().expectAllPassed(skipping: ["SC-1.05", "SC-2.04", "SC-3.02"])
    PublisherConformance(
      elements: 1,
      makePublisher: { Just(1).tryMap { $0 * 2 } },
      makeFailingPublisher: { Just(1).tryMap { _ in throw TestError() } }
    )
    .run().expectAllPassed(skipping: ["SC-1.05", "SC-3.02"])
    PublisherConformance(elements: 0, makePublisher: { Just(1).filter { _ in false } })
      .run().expectAllPassed(skipping: ["SC-1.05", "SC-2.04", "SC-3.01", "SC-3.02"])
    PublisherConformance(elements: 3, makePublisher: { Just(1).append(2, 3) })
      .run().expectAllPassed(skipping: ["SC-1.05", "SC-2.04"])
  }
}
