import Foundation
import StreamFoundation
import Testing

@Suite(.timeLimit(.minutes(5)))
struct RunLoopSchedulerTimeTypeTests {
  typealias Time = RunLoop.SchedulerTimeType
  typealias Stride = Time.Stride

  @Test func literalsAndFactories_countSeconds() {
    let literal: Stride = 2
    let float: Stride = 0.25
    #expect(literal.timeInterval == 2)
    #expect(float.timeInterval == 0.25)
    #expect(Stride.seconds(3).timeInterval == 3)
    #expect(Stride.seconds(1.5).timeInterval == 1.5)
    #expect(Stride.milliseconds(250).timeInterval == 0.25)
    #expect(Stride.microseconds(500).timeInterval == 0.0005)
    #expect(Stride.nanoseconds(1_000).timeInterval == 0.000001)
    #expect(Stride(exactly: 7)?.timeInterval == 7)
  }

  @Test func arithmetic_andMagnitude_keepTheSign() {
    var stride: Stride = 2
    stride += 1
    stride -= 4
    #expect(stride.magnitude == -1)
    stride *= 3
    #expect(stride.timeInterval == -3)
    #expect(Stride(1) + Stride(2) == Stride(3))
    #expect(Stride(1) < Stride(2))
  }

  @Test func advancedAndDistance_areDateArithmetic() {
    let start = Time(Date(timeIntervalSinceReferenceDate: 100))
    let later = start.advanced(by: .milliseconds(1_500))
    #expect(later.date == Date(timeIntervalSinceReferenceDate: 101.5))
    #expect(start.distance(to: later) == .seconds(1.5))
    #expect(later.distance(to: start) == .seconds(-1.5))
    #expect(start < later)
  }

  /// As in Combine, an operation queue's time is a type of its own, so code can extend each
  /// (OpenCombine's `OperationQueueSchedulerTests` and `RunLoopSchedulerTests` both do).
  @Test func operationQueue_hasATimeTypeOfItsOwn_withTheSameMembers() {
    #expect(OperationQueue.SchedulerTimeType.self != RunLoop.SchedulerTimeType.self)
    #expect(OperationQueue.SchedulerTimeType.Stride.self != RunLoop.SchedulerTimeType.Stride.self)
    let start = OperationQueue.SchedulerTimeType(Date(timeIntervalSinceReferenceDate: 100))
    let later = start.advanced(by: .milliseconds(1_500))
    #expect(later.date == Date(timeIntervalSinceReferenceDate: 101.5))
    #expect(start.distance(to: later) == .seconds(1.5))
    #expect(OperationQueue.main.now.date.timeIntervalSinceNow <= 0)
  }

  @Test func codable_roundTripsTheDateAndTheSeconds() throws {
    let time = Time(Date(timeIntervalSinceReferenceDate: 42))
    let decoded = try JSONDecoder().decode(Time.self, from: JSONEncoder().encode(time))
    #expect(decoded == time)
    let stride = Stride.milliseconds(750)
    let data = try JSONEncoder().encode(stride)
    #expect(String(decoding: data, as: UTF8.self) == #"{"magnitude":0.75}"#)  // Combine's keys
    let timeData = try JSONEncoder().encode(time)
    #expect(String(decoding: timeData, as: UTF8.self) == #"{"date":42}"#)
    #expect(try JSONDecoder().decode(Stride.self, from: data) == stride)
  }
}
