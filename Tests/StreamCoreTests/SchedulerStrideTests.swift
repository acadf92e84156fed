import Dispatch
import Foundation
import StreamCore
import Testing

private typealias DispatchStride = DispatchQueue.SchedulerTimeType.Stride
private typealias ImmediateStride = ImmediateScheduler.SchedulerTimeType.Stride

@Suite(.timeLimit(.minutes(5))) struct SchedulerStrideTests {
  // MARK: - DispatchQueue stride: conversions

  @Test func dispatchConversions_giveNanosecondMagnitudes() {
    #expect(DispatchStride.seconds(2).magnitude == 2_000_000_000)
    #expect(DispatchStride.seconds(1.5).magnitude == 1_500_000_000)
    #expect(DispatchStride.milliseconds(3).magnitude == 3_000_000)
    #expect(DispatchStride.microseconds(4).magnitude == 4_000)
    #expect(DispatchStride.nanoseconds(5).magnitude == 5)
    #expect(DispatchStride.seconds(-1).magnitude == -1_000_000_000)
  }

  @Test func dispatchSecondsDouble_roundsToTheNearestNanosecond() {
    #expect(DispatchStride.seconds(0.3).magnitude == 300_000_000)
    #expect(DispatchStride.seconds(1e-9 * 0.4).magnitude == 0)
    #expect(DispatchStride.seconds(1e-9 * 0.6).magnitude == 1)
    #expect(DispatchStride.seconds(-0.25).magnitude == -250_000_000)
  }

  @Test func dispatchSecondsOutOfRange_saturates() {
    #expect(DispatchStride.seconds(Int.max).magnitude == .max)
    #expect(DispatchStride.seconds(Int.min).magnitude == .min)
    #expect(DispatchStride.milliseconds(.max).magnitude == .max)
    #expect(DispatchStride.seconds(1e300).magnitude == .max)
    #expect(DispatchStride.seconds(-Double.infinity).magnitude == .min)
  }

  @Test func dispatchLiterals_countSeconds() {
    let integer: DispatchStride = 2
    let float: DispatchStride = 0.25
    #expect(integer == .seconds(2))
    #expect(float == .milliseconds(250))
    #expect(DispatchStride.zero.magnitude == 0)
  }

  @Test func dispatchExactly_countsSecondsAndRejectsOverflow() {
    #expect(DispatchStride(exactly: 3) == .seconds(3))
    #expect(DispatchStride(exactly: UInt8(7)) == .seconds(7))
    #expect(DispatchStride(exactly: Int.max) == nil)
    #expect(DispatchStride(exactly: UInt64.max) == nil)
  }

  @Test func dispatchFromTimeInterval_mapsEveryCase() {
    #expect(DispatchStride(.seconds(1)).magnitude == 1_000_000_000)
    #expect(DispatchStride(.milliseconds(2)).magnitude == 2_000_000)
    #expect(DispatchStride(.microseconds(3)).magnitude == 3_000)
    #expect(DispatchStride(.nanoseconds(4)).magnitude == 4)
    #expect(DispatchStride(.never).magnitude == .max)
    #expect(DispatchStride(.seconds(.max)).magnitude == .max)
  }

  @Test func dispatchTimeInterval_isAlwaysNanoseconds_asInCombine() {
    #expect(DispatchStride.milliseconds(7).timeInterval == .nanoseconds(7_000_000))
    #expect(DispatchStride.seconds(-1).timeInterval == .nanoseconds(-1_000_000_000))
    #expect(DispatchStride(.never).timeInterval == .nanoseconds(.max))
  }

  // MARK: - DispatchQueue stride: arithmetic and comparison

  @Test func dispatchAdditionAndSubtraction_workInNanoseconds() {
    #expect(DispatchStride.seconds(1) + .milliseconds(500) == .milliseconds(1_500))
    #expect(DispatchStride.milliseconds(1) - .microseconds(1_500) == .microseconds(-500))
    var stride = DispatchStride.nanoseconds(10)
    stride += .nanoseconds(5)
    stride -= .nanoseconds(3)
    #expect(stride == .nanoseconds(12))
  }

  @Test func dispatchMultiplication_treatsStridesAsSeconds() {
    #expect(DispatchStride.milliseconds(500) * 3 == .milliseconds(1_500))
    #expect(DispatchStride.seconds(2) * .seconds(3) == .seconds(6))
    #expect(DispatchStride.milliseconds(500) * .milliseconds(500) == .milliseconds(250))
    #expect(DispatchStride.seconds(2) * -1 == .seconds(-2))
    var stride = DispatchStride.milliseconds(10)
    stride *= 0.5
    #expect(stride == .milliseconds(5))
  }

  @Test func dispatchNegation_keepsTheSignInMagnitude() {
    let stride = -DispatchStride.seconds(1)
    #expect(stride.magnitude == -1_000_000_000)
    #expect(stride < .zero)
  }

  @Test func dispatchComparison_ordersByLength() {
    #expect(DispatchStride.milliseconds(999) < .seconds(1))
    #expect(DispatchStride.seconds(-1) < .nanoseconds(0))
    #expect(DispatchStride.microseconds(1_000) == .milliseconds(1))
    let sorted = [DispatchStride.seconds(1), .nanoseconds(1), .milliseconds(1)].sorted()
    #expect(sorted == [.nanoseconds(1), .milliseconds(1), .seconds(1)])
  }

  @Test func dispatchCodable_roundTrips() throws {
    let strides: [DispatchStride] = [.seconds(2), .nanoseconds(-7), .init(.never)]
    let data = try JSONEncoder().encode(strides)
    #expect(try JSONDecoder().decode([DispatchStride].self, from: data) == strides)
  }

  @Test func dispatchHashable_equalStridesHashEqually() {
    #expect(Set<DispatchStride>([.seconds(1), .milliseconds(1_000), .nanoseconds(1)]).count == 2)
  }

  // MARK: - ImmediateScheduler stride

  @Test func immediateConversionsFromAUnitOfTime_areZero_asInCombine() {
    #expect(ImmediateStride.seconds(3).magnitude == 0)
    #expect(ImmediateStride.seconds(1.2).magnitude == 0)
    #expect(ImmediateStride.milliseconds(3).magnitude == 0)
    #expect(ImmediateStride.microseconds(3).magnitude == 0)
    #expect(ImmediateStride.nanoseconds(3).magnitude == 0)
    #expect(ImmediateStride.seconds(-4).magnitude == 0)
  }

  @Test func immediateFloatValues_roundTowardZero() {
    let float: ImmediateStride = 2.9
    #expect(float.magnitude == 2)
    let negative: ImmediateStride = -2.9
    #expect(negative.magnitude == -2)
  }

  @Test func immediateInitAndLiterals_storeTheValue() {
    let literal: ImmediateStride = 5
    #expect(literal == ImmediateStride(5))
    #expect(literal.magnitude == 5)
    #expect(ImmediateStride.zero.magnitude == 0)
    #expect(ImmediateStride(exactly: UInt8(9)) == ImmediateStride(9))
    #expect(ImmediateStride(exactly: UInt64.max) == nil)
  }

  @Test func immediateArithmetic_isIntArithmetic() {
    #expect(ImmediateStride(2) + 3 == 5)
    #expect(ImmediateStride(2) - 3 == -1)
    #expect(ImmediateStride(2) * 3 == 6)
    #expect((-ImmediateStride(2)).magnitude == -2)
    var stride = ImmediateStride(1)
    stride += 4
    stride -= 2
    stride *= 5
    #expect(stride == 15)
  }

  @Test func immediateComparison_ordersByValue() {
    #expect(ImmediateStride(1) < 2)
    #expect(ImmediateStride(-1) < .zero)
    #expect([ImmediateStride(3), 1, 2].sorted() == [1, 2, 3])
  }

  @Test func immediateCodable_roundTrips() throws {
    let strides: [ImmediateStride] = [0, 7, -3]
    let data = try JSONEncoder().encode(strides)
    #expect(try JSONDecoder().decode([ImmediateStride].self, from: data) == strides)
  }
}
