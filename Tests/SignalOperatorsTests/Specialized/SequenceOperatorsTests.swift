import SignalOperators
import StreamCore
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct SequenceOperatorsTests {
  typealias Failing<Elements: Sequence> = Publishers.Sequence<Elements, TestError>

  // MARK: Transforming and filtering

  @Test func map_returnsSequencePublisherOfTheResults() {
    let p: Publishers.Sequence<[String], Never> = (1...3).publisher.map { "\($0)" }
    #expect(p.sequence == ["1", "2", "3"])
    #expect(
      specializedRecord(p).events == [
        .subscription, .value("1"), .value("2"), .value("3"), .completion(.finished),
      ]
    )
  }

  @Test func map_keepsTheFailureTypeAndHonoursDemand() {
    let p: Publishers.Sequence<[Int], TestError> = Failing(sequence: [1, 2]).map { $0 * 2 }
    let recorder = specializedRecord(p, initialDemand: .max(1))
    #expect(recorder.events == [.subscription, .value(2)])
    recorder.request(.max(1))
    #expect(recorder.events == [.subscription, .value(2), .value(4), .completion(.finished)])
  }

  @Test func compactMap_dropsNils() {
    let p: Publishers.Sequence<[Int], Never> = ["1", "x", "3"].publisher.compactMap { Int($0) }
    #expect(p.sequence == [1, 3])
  }

  @Test func filter_keepsAcceptedElements() {
    let p: Publishers.Sequence<[Int], Never> = [1, 2, 3, 4].publisher.filter { $0 > 2 }
    #expect(specializedRecord(p).values == [3, 4])
  }

  @Test func filter_rejectingAll_finishesWithoutValues() {
    let p = [1, 2].publisher.filter { _ in false }
    #expect(specializedRecord(p).events == [.subscription, .completion(.finished)])
  }

  @Test func scan_publishesRunningResults() {
    let p: Publishers.Sequence<[Int], Never> = [1, 2, 3].publisher.scan(0, +)
    #expect(p.sequence == [1, 3, 6])
    #expect([Int]().publisher.scan(0, +).sequence.isEmpty)
  }

  @Test func replaceNil_unwrapsWithTheReplacement() {
    let p: Publishers.Sequence<[Int], Never> = [1, nil, 3].publisher.replaceNil(with: 0)
    #expect(specializedRecord(p).values == [1, 0, 3])
  }

  @Test func dropFirst_returnsLazyDropFirstSequence() {
    let p: Publishers.Sequence<DropFirstSequence<[Int]>, Never> = [1, 2, 3].publisher.dropFirst()
    #expect(specializedRecord(p).values == [2, 3])
    #expect(specializedRecord([1, 2, 3].publisher.dropFirst(5)).values.isEmpty)
  }

  @Test func dropWhile_returnsDropWhileSequence() {
    let p: Publishers.Sequence<DropWhileSequence<[Int]>, Never> =
      [1, 2, 5, 1].publisher.drop { $0 < 3 }
    #expect(specializedRecord(p).values == [5, 1])
  }

  @Test func prefix_returnsPrefixSequence() {
    let p: Publishers.Sequence<PrefixSequence<[Int]>, Never> = [1, 2, 3].publisher.prefix(2)
    #expect(specializedRecord(p).values == [1, 2])
    let whileP: Publishers.Sequence<[Int], Never> = [1, 2, 5, 1].publisher.prefix { $0 < 3 }
    #expect(whileP.sequence == [1, 2])
  }

  @Test func removeDuplicates_dropsConsecutiveRepeats() {
    let p: Publishers.Sequence<[Int], Never> = [1, 1, 2, 2, 1].publisher.removeDuplicates()
    #expect(p.sequence == [1, 2, 1])
  }

  @Test func ignoreOutput_returnsEmpty() {
    let p: Empty<Int, TestError> = Failing(sequence: [1, 2]).ignoreOutput()
    #expect(specializedRecord(p).events == [.subscription, .completion(.finished)])
  }

  @Test func setFailureType_returnsSequencePublisherWithTheNewFailure() {
    let p: Publishers.Sequence<[Int], TestError> = [1].publisher.setFailureType(to: TestError.self)
    #expect(p.sequence == [1])
  }

  @Test func appendAndPrepend_returnSequencePublisherOfTheSameCollection() {
    let a: Publishers.Sequence<[Int], Never> = [1].publisher.append(2, 3)
    let b: Publishers.Sequence<[Int], Never> = [1].publisher.append(2...3)
    let c: Publishers.Sequence<[Int], Never> = [1].publisher.append([2, 3].publisher)
    let d: Publishers.Sequence<[Int], Never> = [3].publisher.prepend(1, 2)
    let e: Publishers.Sequence<[Int], Never> = [3].publisher.prepend(1...2)
    let f: Publishers.Sequence<[Int], Never> = [3].publisher.prepend([1, 2].publisher)
    for p in [a, b, c, d, e, f] {
      #expect(specializedRecord(p).values == [1, 2, 3])
    }
  }

  // MARK: Reducing

  @Test func collect_returnsResultPublisherOfTheArray() {
    let p: Result<[Int], Never>.Publisher = (1...3).publisher.collect()
    #expect(
      specializedRecord(p).events == [.subscription, .value([1, 2, 3]), .completion(.finished)]
    )
    #expect(specializedRecord([Int]().publisher.collect()).values == [[]])
  }

  @Test func count_ofRandomAccessNeverFailing_returnsJust() {
    let p: Just<Int> = [1, 2, 3].publisher.count()
    #expect(p.output == 3)
  }

  @Test func count_ofOtherCollections_returnsResultPublisher() {
    let failing: Result<Int, TestError>.Publisher = Failing(sequence: [1, 2]).count()
    let set: Result<Int, Never>.Publisher = Set([1, 2, 3]).publisher.count()
    #expect(failing.result == .success(2))
    #expect(specializedRecord(set).values == [3])
    #expect(Just<Int>.self == type(of: [Int]().publisher.count()))
    #expect([Int]().publisher.count().output == 0)
  }

  @Test func containsAndAllSatisfy_answerWithEmptySequenceDefaults() {
    let contains: Result<Bool, Never>.Publisher = [1, 2].publisher.contains(2)
    let containsWhere: Result<Bool, Never>.Publisher = [1, 2].publisher.contains { $0 > 5 }
    let all: Result<Bool, TestError>.Publisher = Failing(sequence: [2, 4]).allSatisfy { $0 > 1 }
    #expect(contains.result == .success(true))
    #expect(containsWhere.result == .success(false))
    #expect(all.result == .success(true))
    #expect([Int]().publisher.allSatisfy { _ in false }.result == .success(true))
    #expect([Int]().publisher.contains(1).result == .success(false))
  }

  @Test func tryContainsAndTryAllSatisfy_publishTheAnswerOrTheError() {
    let contains: Result<Bool, any Error>.Publisher = [1, 2].publisher.tryContains { $0 == 2 }
    let all: Result<Bool, any Error>.Publisher = [1, 2].publisher.tryAllSatisfy { $0 > 1 }
    #expect(specializedOutcome(contains).values == [true])
    #expect(specializedOutcome(all).values == [false])
    let thrown = [1, 2].publisher.tryContains { _ in throw TestError(code: 1) }
    #expect(specializedThrown(thrown) == TestError(code: 1))
    #expect(
      specializedThrown([1].publisher.tryAllSatisfy { _ in throw TestError(code: 2) })
        == TestError(code: 2)
    )
  }

  @Test func reduce_returnsResultPublisherOfTheFold() {
    let p: Result<Int, Never>.Publisher = [1, 2, 3].publisher.reduce(10, +)
    #expect(specializedRecord(p).events == [.subscription, .value(16), .completion(.finished)])
    #expect([Int]().publisher.reduce(7, +).result == .success(7))
  }

  @Test func tryReduce_publishesTheFoldOrTheError() {
    let p: Result<Int, any Error>.Publisher = [1, 2, 3].publisher.tryReduce(0, +)
    #expect(specializedOutcome(p).values == [6])
    let failed = [1, 2, 3].publisher.tryReduce(0) { sum, next in
      if next == 2 { throw TestError(code: 7) }
      return sum + next
    }
    #expect(specializedThrown(failed) == TestError(code: 7))
    #expect(specializedOutcome(failed).values.isEmpty)
  }

  // MARK: Selecting single elements

  @Test func firstAndLast_returnOptionalPublisher() {
    let first: Optional<Int>.Publisher = [1, 2, 3].publisher.first()
    let last: Optional<Int>.Publisher = [1, 2, 3].publisher.last()
    let firstWhere: Optional<Int>.Publisher = [1, 4, 6].publisher.first { $0 > 3 }
    let lastWhere: Optional<Int>.Publisher = [1, 4, 6].publisher.last { $0 < 5 }
    let outputs: [Int?] = [first.output, last.output, firstWhere.output, lastWhere.output]
    #expect(outputs == [1, 3, 4, 4])
    #expect(
      specializedRecord([Int]().publisher.first()).events == [
        .subscription, .completion(.finished),
      ]
    )
    #expect([1].publisher.last { $0 > 5 }.output == nil)
  }

  @Test func minAndMax_returnOptionalPublisher() {
    let min: Optional<Int>.Publisher = [3, 1, 2].publisher.min()
    let max: Optional<Int>.Publisher = [3, 1, 2].publisher.max()
    let minBy: Optional<String>.Publisher = ["bb", "a"].publisher.min { $0.count < $1.count }
    let maxBy: Optional<String>.Publisher = ["bb", "a"].publisher.max { $0.count < $1.count }
    #expect(min.output == 1)
    #expect(max.output == 3)
    #expect(minBy.output == "a")
    #expect(maxBy.output == "bb")
    #expect([Int]().publisher.min().output == nil)
  }

  @Test func outputAt_returnsOptionalPublisherOfTheIndexedElement() {
    let p: Optional<Int>.Publisher = [10, 20].publisher.output(at: 1)
    #expect(p.output == 20)
    #expect([10, 20].publisher.output(at: 2).output == nil)
    #expect([10, 20].publisher.output(at: -1).output == nil)
  }

  @Test func outputIn_returnsSequencePublisherOfTheSlice() {
    let p: Publishers.Sequence<[Int], Never> = [1, 2, 3, 4].publisher.output(in: 1..<3)
    #expect(p.sequence == [2, 3])
    #expect([1, 2].publisher.output(in: 2..<2).sequence.isEmpty)
  }

  @Test func outputIn_pastTheEnd_trapsAsTheCollectionsSubscript() async {
    // As Combine's specialisation, which slices the collection with the range as it is.
    await #expect(processExitsWith: .failure) {
      _ = [1, 2].publisher.output(in: 1..<9)
    }
  }

  @Test func outputAt_andOutputIn_askTheCollectionAsCombinesDo() {
    // OpenCombine's `SequenceTests.test…OperatorSpecialization`: `indices` then the subscript;
    // the slice, without reading the bounds first.
    let calls = CallLog()
    let collection = LoggingCollection(base: [1, 2, 3, 4, 5], log: calls)
    #expect(collection.publisher.output(at: 3).output == 4)
    #expect(calls.calls == ["indices", "subscript(position)"])
    calls.calls = []
    #expect(collection.publisher.output(in: 1..<3).sequence == [2, 3])
    #expect(calls.calls.first == "subscript(bounds)")
    #expect(!calls.calls.contains("startIndex"))
  }

  // MARK: Chains and conformance

  @Test func chain_staysASimplePublisher() {
    let p = [1, 2, 3, 4].publisher.map { $0 * 2 }.filter { $0 > 2 }.count()
    #expect(type(of: p) == Just<Int>.self)
    #expect(p.output == 3)
    let q = [1, 2, 3].publisher.dropFirst().collect()
    #expect(type(of: q) == Result<[Int], Never>.Publisher.self)
    #expect(q.result == .success([2, 3]))
  }

  @Test func returnedPublishers_conform() {
    PublisherConformance(
      elements: 3,
      makePublisher: { [1, 2, 3].publisher.map { $0 * 2 } },
      makeLongPublisher: { Array(0..<100_000).publisher.map { $0 * 2 } }
    )
    .run().expectAllPassed(skipping: ["SC-2.04"])
    PublisherConformance(elements: 2, makePublisher: { [1, 2, 3].publisher.dropFirst() })
      .run().expectAllPassed(skipping: ["SC-1.05", "SC-2.04"])
    PublisherConformance(elements: 1, makePublisher: { [1, 2, 3].publisher.reduce(0, +) })
      .run().expectAllPassed(skipping: ["SC-1.05", "SC-2.04", "SC-3.02"])
    PublisherConformance(elements: 0, makePublisher: { [Int]().publisher.first() })
      .run().expectAllPassed(skipping: ["SC-1.05", "SC-2.04", "SC-3.01", "SC-3.02"])
  }
}

/// A collection that logs the requirements a caller uses, for checking the calls an operator's
/// specialisation makes.
private struct LoggingCollection: Collection, @unchecked Sendable {
  let base: [Int]
  let log: CallLog

  var startIndex: Int {
    log.calls.append("startIndex")
    return base.startIndex
  }

  var endIndex: Int {
    log.calls.append("endIndex")
    return base.endIndex
  }

  var indices: Range<Int> {
    log.calls.append("indices")
    return base.indices
  }

  func index(after index: Int) -> Int { base.index(after: index) }

  subscript(position: Int) -> Int {
    log.calls.append("subscript(position)")
    return base[position]
  }

  subscript(bounds: Range<Int>) -> Slice<LoggingCollection> {
    log.calls.append("subscript(bounds)")
    return Slice(base: self, bounds: bounds)
  }
}
