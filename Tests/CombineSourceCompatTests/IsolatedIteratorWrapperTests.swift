// The Swift 6 form of the client code in Tests/Swift5ClientTests/RethrowingIteratorWrapperTests:
// a generic actor that forwards an iterator's `next` for its callers, used with `values`. In the
// Swift 6 language mode an actor can't hand a non-`Sendable` iterator to the nonisolated `next()`
// ("sending 'copy' risks causing data races", with Combine's iterators as with ours), so Swift 6
// code calls `next(isolation:)`, which runs on the actor. A concrete `Failure` on our iterator
// crashed the compiler on the `rethrows` form; this target checks the form Swift 6 code uses.

import SignalOperators
import StreamCore
import Testing

private actor IsolatedIteratorWrapper<Iterator: AsyncIteratorProtocol> {
  var iterator: Iterator
  init(_ iterator: Iterator) { self.iterator = iterator }
  func next() async throws(Iterator.Failure) -> Iterator.Element? {
    var copy = iterator
    let result = try await copy.next(isolation: self)
    iterator = copy
    return result
  }
}

private struct Oops: Error {}

@Suite(.timeLimit(.minutes(5))) struct IsolatedIteratorWrapperTests {
  @Test func aFailureReachesTheWrappersCaller() async {
    let subject = PassthroughSubject<Int, Oops>()
    let iterator = IsolatedIteratorWrapper(subject.values.makeAsyncIterator())
    subject.send(completion: .failure(Oops()))
    var caught = false
    do { _ = try await iterator.next() } catch is Oops { caught = true } catch {}
    #expect(caught)
  }
}
