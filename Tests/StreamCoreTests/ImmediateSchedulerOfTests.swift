import Dispatch
import StreamCombineSchedulers
import StreamCore
import Testing

@Suite(.timeLimit(.minutes(5))) struct ImmediateSchedulerOfTests {
  @Test func dispatchImmediate_runsEveryActionBeforeReturning() {
    let scheduler = DispatchQueue.immediate
    let log = Log()
    scheduler.schedule { log.append("a") }
    scheduler.schedule(after: scheduler.now.advanced(by: .seconds(60))) { log.append("b") }
    let token = scheduler.schedule(after: scheduler.now, interval: .seconds(1)) { log.append("c") }
    #expect(log.entries == ["a", "b", "c"])
    token.cancel()
    #expect(log.entries == ["a", "b", "c"])
  }

  @Test func now_isTheInstantGivenAndNeverMoves() {
    let scheduler = DispatchQueue.immediate
    #expect(scheduler.now.dispatchTime.uptimeNanoseconds == 1)
    scheduler.schedule(after: scheduler.now.advanced(by: .seconds(5))) {}
    #expect(scheduler.now.dispatchTime.uptimeNanoseconds == 1)
    #expect(scheduler.minimumTolerance == .zero)
    let custom = ImmediateSchedulerOf<DispatchQueue>(now: .init(.init(uptimeNanoseconds: 77)))
    #expect(custom.now.dispatchTime.uptimeNanoseconds == 77)
  }

  @Test func uiSchedulerImmediate_isTypedAsTheUIScheduler() {
    let scheduler: ImmediateSchedulerOf<UIScheduler> = UIScheduler.immediate
    let log = Log()
    scheduler.schedule { log.append("ran") }
    #expect(log.entries == ["ran"])
  }
}
