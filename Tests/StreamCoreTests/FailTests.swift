import StreamCore
import Testing

@Suite(.timeLimit(.minutes(5))) struct FailTests {
  @Test func subscribe_sendsEmptySubscriptionThenTheFailure() {
    let recorder = Recorder<Int, TestError>()
    Fail<Int, TestError>(error: TestError(code: 7)).subscribe(recorder)
    #expect(
      recorder.events == [.subscription("Empty"), .completion(.failure(TestError(code: 7)))]
    )
  }

  @Test func noDemand_stillFails() {
    let recorder = Recorder<Int, TestError>(initialDemand: nil)
    Fail<Int, TestError>(error: TestError()).subscribe(recorder)
    #expect(recorder.events == [.subscription("Empty"), .completion(.failure(TestError()))])
  }

  @Test func eachSubscriber_receivesTheFailure() {
    let fail = Fail<Int, TestError>(error: TestError(code: 2))
    let first = Recorder<Int, TestError>()
    let second = Recorder<Int, TestError>()
    fail.subscribe(first)
    fail.subscribe(second)
    #expect(first.completions == [.failure(TestError(code: 2))])
    #expect(second.completions == [.failure(TestError(code: 2))])
  }

  @Test func typedInitializer_setsTheOutputTypeAndTheError() {
    let fail = Fail(outputType: String.self, failure: TestError(code: 3))
    #expect(fail.error == TestError(code: 3))
    let recorder = Recorder<String, TestError>()
    fail.subscribe(recorder)
    #expect(recorder.completions == [.failure(TestError(code: 3))])
    #expect(recorder.values.isEmpty)
  }

  @Test func equalErrors_areEqual() {
    #expect(Fail<Int, TestError>(error: TestError()) == Fail<Int, TestError>(error: TestError()))
    #expect(
      Fail<Int, TestError>(error: TestError(code: 1))
        != Fail<Int, TestError>(error: TestError(code: 2))
    )
  }

  @Test func completion_releasesTheSubscriber() {
    weak var weakRecorder: Recorder<Int, TestError>?
    do {
      let recorder = Recorder<Int, TestError>()
      weakRecorder = recorder
      Fail<Int, TestError>(error: TestError()).subscribe(recorder)
    }
    #expect(weakRecorder == nil)
  }
}
