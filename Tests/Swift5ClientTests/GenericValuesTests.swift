// Compiled in the Swift 5 language mode, as a client package that hasn't moved to Swift 6 would
// be. It hands `values`' iterators to generic `rethrows` code, the shape that made swift-frontend
// 6.3.1 crash in SILGen for a Swift 5 client (typed throws on `next()` was the suspect), so a
// change that brings such a crash back fails the build.

import SignalOperators
import StreamCore
import Testing

/// Wraps any iterator in an actor, as test helpers that share an iterator between tasks do.
private actor IteratorBox<Base: AsyncIteratorProtocol> {
  private var base: Base
  init(_ base: Base) { self.base = base }

  func next() async rethrows -> Base.Element? {
    var iterator = base
    defer { base = iterator }
    return try await iterator.next()
  }
}

/// Reads every element through the box, rethrowing the iterator's failure.
private func drain<I: AsyncIteratorProtocol>(_ iterator: I) async rethrows -> [I.Element] {
  let box = IteratorBox(iterator)
  var elements: [I.Element] = []
  while let element = try await box.next() { elements.append(element) }
  return elements
}

/// Reads one element through `inout`, as generic `rethrows` code over iterators does.
private func first<I: AsyncIteratorProtocol>(_ iterator: inout I) async rethrows -> I.Element? {
  try await iterator.next()
}

private struct Broken: Error, Equatable {}

@Suite(.timeLimit(.minutes(5)))
struct GenericValuesTests {
  @Test func aNeverFailingPublishersValuesThroughGenericRethrowsCode() async {
    let values = await drain([1, 2, 3].publisher.values.makeAsyncIterator())
    #expect(values == [1, 2, 3])
  }

  @Test func aFailingPublishersValuesRethrowItsFailure() async {
    let failing = [1, 2].publisher.setFailureType(to: Broken.self)
      .append(Fail(error: Broken()))
    var received: [Int] = []
    var iterator = failing.values.makeAsyncIterator()
    await #expect(throws: Broken.self) {
      while let value = try await first(&iterator) { received.append(value) }
    }
    #expect(received == [1, 2])
  }

  @Test func anyErrorPublishersValuesThroughAnActor() async throws {
    let values = try await drain(
      Just(7).setFailureType(to: (any Error).self).values.makeAsyncIterator()
    )
    #expect(values == [7])
  }
}
