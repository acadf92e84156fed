import Foundation
import StreamCore
import Testing

private typealias Demand = Subscribers.Demand

@Suite(.timeLimit(.minutes(5))) struct DemandTests {
  // MARK: Construction and description

  @Test func max_keepsItsValue() {
    #expect(Demand.max(0).max == 0)
    #expect(Demand.max(3).max == 3)
    #expect(Demand.max(Int.max).max == Int.max)
  }

  @Test func none_isMaxZero() {
    #expect(Demand.none == .max(0))
    #expect(Demand.none.max == 0)
  }

  @Test func unlimited_hasNoMax() {
    #expect(Demand.unlimited.max == nil)
    #expect(Demand.unlimited != .max(Int.max))
  }

  @Test func description_namesTheDemand() {
    #expect(Demand.unlimited.description == "unlimited")
    #expect(Demand.max(3).description == "max(3)")
    #expect(Demand.none.description == "max(0)")
    #expect(String(describing: Demand.max(Int.max)) == "max(\(Int.max))")
  }

  @Test func maxOfNegative_traps() async {
    let trap1 = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      _ = Subscribers.Demand.max(-1)
    }
    expectTrap(trap1, "Subscribers.Demand.max(-1): demand must not be negative")
  }

  // MARK: Addition

  @Test func plusDemand_addsFiniteDemands() {
    #expect(Demand.max(2) + .max(3) == .max(5))
    #expect(Demand.none + .none == .none)
  }

  @Test func plusDemand_overflowBecomesUnlimited() {
    #expect(Demand.max(Int.max) + .max(1) == .unlimited)
    #expect(Demand.max(Int.max) + .max(Int.max) == .unlimited)
  }

  @Test func plusDemand_withUnlimitedIsUnlimited() {
    #expect(Demand.unlimited + .max(1) == .unlimited)
    #expect(Demand.max(1) + .unlimited == .unlimited)
    #expect(Demand.unlimited + .none == .unlimited)
    #expect(Demand.unlimited + .max(Int.max) == .unlimited)
  }

  @Test func unlimitedPlusUnlimited_isUnlimited() {
    #expect(Demand.unlimited + .unlimited == .unlimited)
    var demand = Demand.unlimited
    demand += .unlimited
    #expect(demand == .unlimited)
  }

  @Test func plusInt_addsItems() {
    #expect(Demand.max(2) + 3 == .max(5))
    #expect(Demand.max(5) + (-2) == .max(3))
    #expect(Demand.max(5) + (-5) == .none)
  }

  @Test func plusInt_overflowBecomesUnlimited() {
    #expect(Demand.max(Int.max) + 1 == .unlimited)
    #expect(Demand.max(1) + Int.max == .unlimited)
  }

  @Test func plusInt_unlimitedStaysUnlimited() {
    #expect(Demand.unlimited + 1 == .unlimited)
    #expect(Demand.unlimited + (-1) == .unlimited)
  }

  @Test func plusNegativeIntBeyondDemand_traps() async {
    let trap2 = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      _ = Subscribers.Demand.max(1) + (-2)
    }
    expectTrap(trap2, "Subscribers.Demand: max(1) + -2 would be a negative demand")
  }

  @Test func plusEqualsDemand_accumulates() {
    var demand = Demand.max(1)
    demand += .max(2)
    #expect(demand == .max(3))
    demand += .unlimited
    #expect(demand == .unlimited)
    demand += .max(1)
    #expect(demand == .unlimited)
  }

  @Test func plusEqualsInt_accumulatesAndOverflowsToUnlimited() {
    var demand = Demand.none
    demand += 4
    #expect(demand == .max(4))
    demand += Int.max
    #expect(demand == .unlimited)
  }

  // MARK: Multiplication

  @Test func timesInt_multiplies() {
    #expect(Demand.max(3) * 4 == .max(12))
    #expect(Demand.max(3) * 0 == .none)
    #expect(Demand.none * 7 == .none)
  }

  @Test func timesInt_overflowBecomesUnlimited() {
    #expect(Demand.max(Int.max) * 2 == .unlimited)
    #expect(Demand.max(Int.max / 2 + 1) * 2 == .unlimited)
    #expect(Demand.max(Int.max / 2) * 2 == .max(Int.max - 1))
  }

  @Test func timesInt_unlimitedStaysUnlimited() {
    #expect(Demand.unlimited * 2 == .unlimited)
    #expect(Demand.unlimited * 0 == .unlimited)
  }

  @Test func timesNegativeInt_traps() async {
    let trap3 = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      _ = Subscribers.Demand.max(1) * -1
    }
    expectTrap(trap3, "Subscribers.Demand: max(1) * -1 would be a negative demand")
  }

  @Test func timesEqualsInt_multipliesInPlace() {
    var demand = Demand.max(2)
    demand *= 5
    #expect(demand == .max(10))
    demand *= Int.max
    #expect(demand == .unlimited)
  }

  // MARK: Subtraction

  @Test func minusDemand_subtractsFiniteDemands() {
    #expect(Demand.max(5) - .max(2) == .max(3))
    #expect(Demand.max(5) - .max(5) == .none)
  }

  @Test func minusBiggerDemand_isNone() {
    #expect(Demand.max(2) - .max(5) == .none)
    #expect(Demand.none - .max(1) == .none)
  }

  @Test func finiteMinusUnlimited_isNone() {
    #expect(Demand.max(Int.max) - .unlimited == .none)
    #expect(Demand.none - .unlimited == .none)
  }

  @Test func unlimitedMinusDemand_isUnlimited() {
    #expect(Demand.unlimited - .max(1) == .unlimited)
    #expect(Demand.unlimited - .max(Int.max) == .unlimited)
    #expect(Demand.unlimited - .unlimited == .unlimited)
  }

  @Test func minusInt_subtractsAndNeverGoesNegative() {
    #expect(Demand.max(5) - 2 == .max(3))
    #expect(Demand.max(5) - 5 == .none)
    #expect(Demand.max(2) - 5 == .none)
    #expect(Demand.max(2) - Int.max == .none)
  }

  @Test func minusNegativeInt_adds_andAnOverflowIsNone_asInCombine() {
    #expect(Demand.max(2) - (-3) == .max(5))
    #expect(Demand.max(1) - Int.min == .none)
    #expect(Demand.max(Int.max) - (-1) == .none)
    var demand = Demand.max(Int.max)
    demand -= -1
    #expect(demand == .none)
  }

  @Test func unlimitedMinusInt_isUnlimited() {
    #expect(Demand.unlimited - 1 == .unlimited)
    #expect(Demand.unlimited - Int.max == .unlimited)
  }

  @Test func minusEquals_subtractsInPlace() {
    var demand = Demand.max(5)
    demand -= .max(2)
    #expect(demand == .max(3))
    demand -= 1
    #expect(demand == .max(2))
    demand -= 10
    #expect(demand == .none)
    demand -= .unlimited
    #expect(demand == .none)

    var unlimited = Demand.unlimited
    unlimited -= .max(3)
    unlimited -= 3
    #expect(unlimited == .unlimited)
  }

  // MARK: Comparison

  @Test func demandVersusDemand_ordersByCount() {
    #expect(Demand.none < .max(1))
    #expect(Demand.max(1) < .max(2))
    #expect(Demand.max(2) > .max(1))
    #expect(Demand.max(2) <= .max(2))
    #expect(Demand.max(2) >= .max(2))
    #expect(!(Demand.max(3) < .max(3)))
  }

  @Test func unlimited_isGreaterThanAnyFiniteDemand() {
    #expect(Demand.max(Int.max) < .unlimited)
    #expect(Demand.unlimited > .max(Int.max))
    #expect(Demand.unlimited >= .unlimited)
    #expect(!(Demand.unlimited < .unlimited))
    #expect(
      [Demand.unlimited, .max(7), .none, .max(2)].sorted() == [.none, .max(2), .max(7), .unlimited]
    )
  }

  @Test func demandVersusInt_comparesTheCount() {
    let three = Demand.max(3)
    #expect(three == 3)
    #expect(three != 4)
    #expect(three > 2)
    #expect(!(three > 3))
    #expect(three >= 3)
    #expect(!(three >= 4))
    #expect(three < 4)
    #expect(!(three < 3))
    #expect(three <= 3)
    #expect(!(three <= 2))
  }

  @Test func intVersusDemand_comparesTheCount() {
    let three = Demand.max(3)
    #expect(3 == three)
    #expect(4 != three)
    #expect(4 > three)
    #expect(!(3 > three))
    #expect(3 >= three)
    #expect(!(2 >= three))
    #expect(2 < three)
    #expect(!(3 < three))
    #expect(3 <= three)
    #expect(!(4 <= three))
  }

  @Test func unlimitedVersusInt_isGreaterThanAnyInt() {
    let unlimited = Demand.unlimited
    #expect(unlimited > Int.max)
    #expect(unlimited >= Int.max)
    #expect(!(unlimited < Int.max))
    #expect(!(unlimited <= Int.max))
    #expect(!(unlimited == Int.max))
    #expect(unlimited != Int.max)
    #expect(unlimited > Int.min)
  }

  @Test func intVersusUnlimited_isLessThanUnlimited() {
    let unlimited = Demand.unlimited
    #expect(Int.max < unlimited)
    #expect(Int.max <= unlimited)
    #expect(!(Int.max > unlimited))
    #expect(!(Int.max >= unlimited))
    #expect(!(Int.max == unlimited))
    #expect(Int.max != unlimited)
  }

  // MARK: Hashable and Codable

  @Test func hashable_equalDemandsCollapseInASet() {
    let set: Set<Demand> = [
      .max(1), .max(1), .none, .max(0), .unlimited, .unlimited, .max(Int.max),
    ]
    #expect(set == [.none, .max(1), .max(Int.max), .unlimited])
    #expect(Demand.max(4).hashValue == (Demand.max(1) + 3).hashValue)
  }

  @Test func codable_roundTripsEveryKindOfDemand() throws {
    let demands: [Demand] = [.none, .max(1), .max(42), .max(Int.max), .unlimited]
    let data = try JSONEncoder().encode(demands)
    let decoded = try JSONDecoder().decode([Demand].self, from: data)
    #expect(decoded == demands)
  }

  @Test func codable_decodingANumberAboveTheLargestFiniteDemand_isUnlimited_asInCombine() throws {
    let json = Data("[\(UInt(Int.max) + 2), \(UInt.max)]".utf8)
    #expect(try JSONDecoder().decode([Demand].self, from: json) == [.unlimited, .unlimited])
    #expect(throws: DecodingError.self) {
      try JSONDecoder().decode([Demand].self, from: Data("[-1]".utf8))
    }
  }
}
