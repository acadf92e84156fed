import Foundation
import StreamCore
import Testing

private typealias Completion = Subscribers.Completion<TestError>

/// A hashable error, for the `Hashable` conformance.
private struct HashableError: Error, Hashable {
  var code: Int
}

@Suite(.timeLimit(.minutes(5))) struct CompletionTests {
  @Test func equatable_comparesCaseAndError() {
    #expect(Completion.finished == .finished)
    #expect(Completion.failure(TestError(code: 1)) == .failure(TestError(code: 1)))
    #expect(Completion.failure(TestError(code: 1)) != .failure(TestError(code: 2)))
    #expect(Completion.finished != .failure(TestError()))
  }

  @Test func hashable_equalCompletionsCollapseInASet() {
    let set: Set<Subscribers.Completion<HashableError>> = [
      .finished, .finished, .failure(HashableError(code: 1)), .failure(HashableError(code: 1)),
      .failure(HashableError(code: 2)),
    ]
    #expect(set.count == 3)
    #expect(set.contains(.failure(HashableError(code: 2))))
    let one = Subscribers.Completion<HashableError>.failure(HashableError(code: 1))
    #expect(one.hashValue == Subscribers.Completion.failure(HashableError(code: 1)).hashValue)
  }

  @Test func codable_finished_roundTrips() throws {
    let data = try JSONEncoder().encode(Completion.finished)
    #expect(try JSONDecoder().decode(Completion.self, from: data) == .finished)
  }

  @Test func codable_failure_roundTripsTheError() throws {
    let data = try JSONEncoder().encode(Completion.failure(TestError(code: 7)))
    #expect(try JSONDecoder().decode(Completion.self, from: data) == .failure(TestError(code: 7)))
  }

  @Test func encodedFinished_isSuccessTrueWithoutError() throws {
    let object = try jsonObject(Completion.finished)
    #expect(object.count == 1)
    #expect(object["success"] as? Bool == true)
    #expect(object["error"] == nil)
  }

  @Test func encodedFailure_isSuccessFalseWithError() throws {
    let object = try jsonObject(Completion.failure(TestError(code: 7)))
    #expect(object.count == 2)
    #expect(object["success"] as? Bool == false)
    let error = try #require(object["error"] as? [String: Any])
    #expect(error["code"] as? Int == 7)
  }

  @Test func decodingHandWrittenJSON_readsBothShapes() throws {
    let decoder = JSONDecoder()
    let finished = try decoder.decode(Completion.self, from: Data(#"{"success":true}"#.utf8))
    #expect(finished == .finished)
    let failure = try decoder.decode(
      Completion.self,
      from: Data(#"{"success":false,"error":{"code":3}}"#.utf8)
    )
    #expect(failure == .failure(TestError(code: 3)))
  }

  @Test func decodingFailureWithoutError_throws() {
    #expect(throws: DecodingError.self) {
      try JSONDecoder().decode(Completion.self, from: Data(#"{"success":false}"#.utf8))
    }
  }

  private func jsonObject(_ completion: Completion) throws -> [String: Any] {
    let data = try JSONEncoder().encode(completion)
    return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
  }
}
