// Client code that compiles against Combine: a generic actor that forwards an iterator's `next()`
// through `rethrows`, used with `values`. With a typed-throws `next()` on
// `AsyncThrowingPublisher.Iterator` the Swift 6.3 compiler crashed (signal 11 in SILGen) on this
// code in both language modes; `next()` is untyped `throws` now, as in Combine.

import SignalOperators
import StreamCore
import Testing

private actor IteratorWrapper<Iterator: AsyncIteratorProtocol> {
  var iterator: Iterator
  init(_ iterator: Iterator) { self.iterator = iterator }
  func next() async rethrows -> Iterator.Element? {
    var copy = iterator
    let result = try await copy.next()
    iterator = copy
    return result
  }
}

private struct Oops: Error {}

@Suite(.timeLimit(.minutes(5))) struct RethrowingIteratorWrapperTests {
  @Test func aFailureReachesTheWrappersCaller() async {
    let subject = PassthroughSubject<Int, Oops>()
    let iterator = IteratorWrapper(subject.values.makeAsyncIterator())
    subject.send(completion: .failure(Oops()))
    var caught = false
    do { _ = try await iterator.next() } catch is Oops { caught = true } catch {}
    #expect(caught)
  }
}
