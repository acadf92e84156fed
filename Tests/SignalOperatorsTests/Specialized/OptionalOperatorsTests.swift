import SignalOperators
import StreamCore
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct OptionalOperatorsTests {
  let some = Optional(4).publisher
  let none = Optional<Int>.none.publisher

  private func finishesEmpty<P: Publisher>(_ publisher: P) -> Bool where P.Failure == Never {
    let recorder = specializedRecord(publisher)
    return recorder.values.isEmpty && recorder.completion == .finished
  }

  // MARK: Transforming and filtering

  @Test func map_returnsOptionalPublisherOfTheTransformedValue() {
    let p: Optional<String>.Publisher = some.map { "\($0)" }
    #expect(specializedRecord(p).events == [.subscription, .value("4"), .completion(.finished)])
    #expect(finishesEmpty(none.map { _ in Issue.record("called") }))
  }

  @Test func map_waitsForDemand() {
    let recorder = specializedRecord(some.map { $0 + 1 }, initialDemand: nil)
    #expect(recorder.events == [.subscription])
    recorder.request(.max(1))
    #expect(recorder.events == [.subscription, .value(5), .completion(.finished)])
  }

  @Test func compactMap_dropsNilResults() {
    let p: Optional<Int>.Publisher = Optional("42").publisher.compactMap { Int($0) }
    #expect(p.output == 42)
    #expect(finishesEmpty(Optional("x").publisher.compactMap { Int($0) }))
  }

  @Test func filter_rejected_finishesWithoutValues() {
    let p: Optional<Int>.Publisher = some.filter { _ in false }
    #expect(finishesEmpty(p))
    #expect(some.filter { $0 == 4 }.output == 4)
    #expect(none.filter { _ in true }.output == nil)
  }

  @Test func ignoreOutput_returnsEmpty() {
    let p: Empty<Int, Never> = some.ignoreOutput()
    #expect(finishesEmpty(p))
  }

  @Test func replaceEmpty_returnsJust() {
    let filled: Just<Int> = none.replaceEmpty(with: 0)
    #expect(filled.output == 0)
    #expect(some.replaceEmpty(with: 0).output == 4)
    #expect(specializedRecord(filled).events == [.subscription, .value(0), .completion(.finished)])
  }

  @Test func neverFailingOperators_returnSelf() {
    let results: [Optional<Int>.Publisher] = [
      some.replaceError(with: 0), some.retry(2), some.removeDuplicates(),
      some.removeDuplicates { _, _ in
        Issue.record("called")
        return true
      },
      some.first(), some.last(), some.min(), some.max(),
      some.min { _, _ in
        Issue.record("called")
        return true
      },
      some.max { _, _ in
        Issue.record("called")
        return true
      },
    ]
    #expect(results.allSatisfy { $0 == some })
    #expect(none.retry(1) == none)
  }

  // MARK: Selecting

  @Test func selectingByPredicate_keepsTheValueWhenAccepted() {
    let first: Optional<Int>.Publisher = some.first { $0 > 3 }
    let last: Optional<Int>.Publisher = some.last { $0 > 5 }
    let prefix: Optional<Int>.Publisher = some.prefix { $0 < 5 }
    let drop: Optional<Int>.Publisher = some.drop { $0 < 5 }
    #expect(first.output == 4)
    #expect(last.output == nil)
    #expect(prefix.output == 4)
    #expect(drop.output == nil)
    #expect(some.drop { $0 > 5 }.output == 4)
    #expect(none.first { _ in true }.output == nil)
  }

  @Test func selectingByPosition_keepsOnlyPositionZero() {
    let dropped: Optional<Int>.Publisher = some.dropFirst()
    let at: Optional<Int>.Publisher = some.output(at: 0)
    let inRange: Optional<Int>.Publisher = some.output(in: 0...2)
    let prefix: Optional<Int>.Publisher = some.prefix(0)
    #expect(finishesEmpty(dropped))
    #expect(some.dropFirst(0).output == 4)
    #expect(at.output == 4)
    #expect(some.output(at: 1).output == nil)
    #expect(inRange.output == 4)
    #expect(some.output(in: 1..<3).output == nil)
    #expect(some.output(in: 0..<0).output == nil)
    #expect(prefix.output == nil)
    #expect(some.prefix(1).output == 4)
    #expect(none.output(at: 0).output == nil)
  }

  @Test func negativeCount_traps() async {
    let trap1 = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      _ = Optional(1).publisher.dropFirst(-1)
    }
    expectTrap(trap1, "dropFirst: count must not be negative")
    let trap2 = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      _ = Optional(1).publisher.prefix(-1)
    }
    expectTrap(trap2, "prefix: maxLength must not be negative")
  }

  @Test func outputIn_rangeEndingAtIntMaxMinusOne_traps_asCombinesSpecialisationDoes() async {
    #expect(some.output(in: 0..<(Int.max - 2)).output == 4)
    let trap = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      _ = Optional(12).publisher.output(in: 0..<(Int.max - 1))
    }
    expectTrap(trap, "output(in:): range must end below Int.max - 1")
  }

  // MARK: Reducing

  @Test func collect_publishesOneOrNoElementArray() {
    let p: Optional<[Int]>.Publisher = some.collect()
    #expect(specializedRecord(p).events == [.subscription, .value([4]), .completion(.finished)])
    #expect(none.collect().output == [])
  }

  @Test func count_publishesOne_orNothingWhenEmpty_asCombinesSpecialisationDoes() {
    let p: Optional<Int>.Publisher = some.count()
    #expect(p.output == 1)
    #expect(finishesEmpty(none.count()))
  }

  @Test func containsAndAllSatisfy_publishNothingWhenEmpty_asCombinesSpecialisationsDo() {
    let contains: Optional<Bool>.Publisher = some.contains(4)
    let containsWhere: Optional<Bool>.Publisher = some.contains { $0 > 5 }
    let all: Optional<Bool>.Publisher = some.allSatisfy { $0 > 3 }
    #expect(contains.output == true)
    #expect(containsWhere.output == false)
    #expect(all.output == true)
    #expect(finishesEmpty(none.contains(4)))
    #expect(finishesEmpty(none.contains { _ in true }))
    #expect(finishesEmpty(none.allSatisfy { _ in false }))
  }

  @Test func reduceAndScan_returnOptionalPublisher() {
    let reduced: Optional<Int>.Publisher = some.reduce(10, +)
    let scanned: Optional<Int>.Publisher = some.scan(10, +)
    #expect(
      specializedRecord(reduced).events == [.subscription, .value(14), .completion(.finished)]
    )
    #expect(scanned.output == 14)
    #expect(finishesEmpty(none.reduce(10, +)))
    #expect(finishesEmpty(none.scan(10, +)))
  }

  // MARK: Chains and conformance

  @Test func chain_staysASimplePublisher() {
    let p = some.map { $0 * 2 }.filter { $0 > 5 }.collect().map { $0.count }
    #expect(type(of: p) == Optional<Int>.Publisher.self)
    #expect(p.output == 1)
  }

  @Test func returnedPublishers_conform() {
    PublisherConformance(elements: 1, makePublisher: { Optional(1).publisher.map { $0 * 2 } })
      .run().expectAllPassed(skipping: ["SC-1.05", "SC-2.04", "SC-3.02"])
    PublisherConformance(elements: 0, makePublisher: { Optional(1).publisher.filter { $0 > 1 } })
      .run().expectAllPassed(skipping: ["SC-1.05", "SC-2.04", "SC-3.01", "SC-3.02"])
    PublisherConformance(elements: 1, makePublisher: { Optional(5).publisher.count() })
      .run().expectAllPassed(skipping: ["SC-1.05", "SC-2.04", "SC-3.02"])
  }
}
