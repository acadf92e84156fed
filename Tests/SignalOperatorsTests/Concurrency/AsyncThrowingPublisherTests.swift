import SignalOperators
import StreamConcurrency
import StreamCore
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct AsyncThrowingPublisherTests {

  @Test func values_thenFailure_throwsAfterTheValues() async {
    let subject = PassthroughSubject<Int, TestError>()
    var iterator = subject.values(bufferingPolicy: .unbounded).makeAsyncIterator()
    subject.send(1)
    subject.send(2)
    subject.send(completion: .failure(TestError()))
    var received: [Int] = []
    var thrown: TestError?
    do {
      while let value = try await iterator.next() {
        received.append(value)
      }
    } catch {
      thrown = error as? TestError
    }
    #expect(received == [1, 2])
    #expect(thrown == TestError())
  }

  @Test func afterThrowing_nextReturnsNil() async throws {
    var iterator = Fail<Int, TestError>(error: TestError()).values.makeAsyncIterator()
    await #expect(throws: TestError.self) { try await iterator.next() }
    #expect(try await iterator.next() == nil)
  }

  @Test func finished_endsWithoutThrowing() async throws {
    var received: [Int] = []
    for try await value in Just(7).setFailureTypeForTest(TestError.self).values {
      received.append(value)
    }
    #expect(received == [7])
  }

  @Test func next_requestsOneValueAtATime() async throws {
    let upstream = TestPublisher<Int, TestError>()
    let iterator = upstream.values.makeAsyncIterator()
    let task = Task {
      var iterator = iterator
      return try await iterator.next()
    }
    #expect(await asyncBridgeEventually { upstream.requests == [.demand(.max(1))] })
    upstream.send(5)
    #expect(try await task.value == 5)
    #expect(upstream.violations.isEmpty)
  }

  @Test func failureWithSeveralWaitingTasks_isThrownToTheFirst_theOthersEnd() async {
    let upstream = TestPublisher<Int, TestError>()
    let iterator = SharedIterator(upstream.values.makeAsyncIterator())
    var tasks: [Task<Result<Int?, TestError>, Never>] = []
    for waiting in 1...2 {
      tasks.append(
        Task {
          do {
            return .success(try await iterator.next())
          } catch {
            return .failure(error as! TestError)
          }
        }
      )
      #expect(await asyncBridgeEventually { upstream.requests.count == waiting })
    }
    upstream.send(completion: .failure(TestError(code: 4)))
    #expect(await tasks[0].value == .failure(TestError(code: 4)))
    #expect(await tasks[1].value == .success(nil))
  }

  @Test func failureWhileWaiting_isThrown() async {
    let upstream = TestPublisher<Int, TestError>()
    let task = Task {
      var iterator = upstream.values.makeAsyncIterator()
      return try await iterator.next()
    }
    #expect(await asyncBridgeEventually { upstream.requests.count == 1 })
    upstream.send(completion: .failure(TestError()))
    await #expect(throws: TestError.self) { try await task.value }
  }

  @Test func taskCancelled_returnsNil_andCancelsUpstream() async throws {
    let upstream = TestPublisher<Int, TestError>()
    let task = Task {
      var iterator = upstream.values(bufferingPolicy: .unbounded).makeAsyncIterator()
      return try await iterator.next()
    }
    #expect(await asyncBridgeEventually { upstream.requests.count == 1 })
    task.cancel()
    #expect(try await task.value == nil)
    #expect(upstream.requests == [.demand(.unlimited), .cancel])
  }
}

extension Just {
  /// `Just` with a failure type, without the `setFailureType` operator (not in this file's scope).
  fileprivate func setFailureTypeForTest<E: Error>(_: E.Type) -> Result<Output, E>.Publisher {
    Result<Output, E>.Publisher(.success(output))
  }
}
