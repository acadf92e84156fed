import StreamCore
import Testing

@Suite(.timeLimit(.minutes(5))) struct EmptyTests {
  @Test func completeImmediately_sendsEmptySubscriptionThenFinishes() {
    let recorder = Recorder<Int, TestError>()
    Empty<Int, TestError>().subscribe(recorder)
    #expect(recorder.events == [.subscription("Empty"), .completion(.finished)])
  }

  @Test func noDemand_stillFinishes() {
    let recorder = Recorder<Int, Never>(initialDemand: nil)
    Empty<Int, Never>().subscribe(recorder)
    #expect(recorder.events == [.subscription("Empty"), .completion(.finished)])
  }

  @Test func notCompletingImmediately_sendsOnlyTheSubscription() {
    let recorder = Recorder<Int, Never>()
    Empty<Int, Never>(completeImmediately: false).subscribe(recorder)
    recorder.request(.max(3))
    #expect(recorder.events == [.subscription("Empty")])
  }

  @Test func cancel_isHarmlessAndNothingFollows() {
    let recorder = Recorder<Int, Never>(initialDemand: nil)
    Empty<Int, Never>(completeImmediately: false).subscribe(recorder)
    recorder.cancel()
    recorder.cancel()
    recorder.request(.unlimited)
    #expect(recorder.events == [.subscription("Empty")])
  }

  @Test func typedInitializer_setsTheTypesAndTheFlag() {
    let empty = Empty(
      completeImmediately: false,
      outputType: String.self,
      failureType: TestError.self
    )
    #expect(!empty.completeImmediately)
    let recorder = Recorder<String, TestError>()
    empty.subscribe(recorder)
    #expect(recorder.events == [.subscription("Empty")])
    #expect(Empty(outputType: String.self, failureType: TestError.self).completeImmediately)
  }

  @Test func defaultInitializer_completesImmediately() {
    #expect(Empty<Int, Never>().completeImmediately)
  }

  @Test func emptiesWithTheSameFlag_areEqual() {
    #expect(Empty<Int, Never>() == Empty<Int, Never>(completeImmediately: true))
    #expect(Empty<Int, Never>() != Empty<Int, Never>(completeImmediately: false))
  }

  @Test func subscriber_isNotRetained() {
    weak var weakRecorder: Recorder<Int, Never>?
    do {
      let recorder = Recorder<Int, Never>(initialDemand: nil)
      weakRecorder = recorder
      Empty<Int, Never>(completeImmediately: false).subscribe(recorder)
      recorder.cancel()
    }
    #expect(weakRecorder == nil)
  }
}
