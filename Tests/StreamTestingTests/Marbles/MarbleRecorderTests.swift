import StreamCore
import StreamTesting
import Testing

/// The timestamping recorder.
@Suite(.timeLimit(.minutes(5))) struct MarbleRecorderTests {
  let scheduler = TestScheduler()

  @Test func records_stampEachEventWithTheVirtualInstant() {
    let subject = PassthroughSubject<Int, Never>()
    let recorder = MarbleRecorder<Int, Never>(scheduler: scheduler)
    subject.subscribe(recorder)
    scheduler.advance(by: 2)
    subject.send(1)
    subject.send(2)
    scheduler.advance(by: 3)
    subject.send(completion: .finished)
    #expect(recorder.records.map(\.time) == [VirtualTime(2), VirtualTime(2), VirtualTime(5)])
    #expect(recorder.rendered() == "--(12)|")
    #expect(recorder.violations.isEmpty)
  }

  @Test func frameZero_isTheInstantTheRecorderWasMade() {
    scheduler.advance(by: 10)
    let subject = PassthroughSubject<String, Never>()
    let recorder = MarbleRecorder<String, Never>(scheduler: scheduler)
    subject.subscribe(recorder)
    scheduler.advance(by: 1)
    subject.send("x")
    #expect(recorder.origin == VirtualTime(10))
    #expect(recorder.rendered() == "-x")
  }

  @Test func eventBetweenFrames_isShownInTheEarlierFrame() {
    scheduler.marbleFrame = 10
    let subject = PassthroughSubject<String, Never>()
    let recorder = MarbleRecorder<String, Never>(scheduler: scheduler)
    subject.subscribe(recorder)
    scheduler.advance(by: 15)
    subject.send("x")
    #expect(recorder.timeline.entries.map(\.frame) == [1])
  }

  @Test func demand_isTheTestsToSet_andContractBreaksAreViolations() {
    let upstream = TestPublisher<Int, Never>()
    let recorder = MarbleRecorder<Int, Never>(scheduler: scheduler, initialDemand: nil)
    upstream.subscribe(recorder)
    recorder.request(.max(1))
    upstream.send(1)
    upstream.send(2)  // beyond demand: TestPublisher does not deliver it
    #expect(recorder.records.count == 1)
    #expect(upstream.requests == [.demand(.max(1))])
    recorder.cancel()
    #expect(upstream.requests == [.demand(.max(1)), .cancel])
  }
}
