import SignalOperators
import StreamCombineExt
import StreamCore
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct AssignToManyTests {
  final class Label: @unchecked Sendable {
    var text = ""
  }

  @Test func twoObjects_eachValueAssignedToBoth() {
    let subject = PassthroughSubject<String, Never>()
    let (a, b) = (Label(), Label())
    let cancellable = subject.assign(to: \.text, on: a, and: \.text, on: b)
    subject.send("hi")
    #expect([a.text, b.text] == ["hi", "hi"])
    cancellable.cancel()
    subject.send("later")
    #expect([a.text, b.text] == ["hi", "hi"])
  }

  @Test func threeObjects_eachValueAssignedToAll() {
    let (a, b, c) = (Label(), Label(), Label())
    let cancellable = ["x", "y"].publisher.assign(
      to: \.text,
      on: a,
      and: \.text,
      on: b,
      and: \.text,
      on: c
    )
    #expect([a.text, b.text, c.text] == ["y", "y", "y"])
    _ = cancellable
  }

  @Test func objects_retainedUntilTheCompletion() {
    let subject = PassthroughSubject<String, Never>()
    weak var weakA: Label?
    weak var weakB: Label?
    weak var weakC: Label?
    var cancellable: AnyCancellable?
    do {
      let (a, b, c) = (Label(), Label(), Label())
      (weakA, weakB, weakC) = (a, b, c)
      cancellable = subject.assign(to: \.text, on: a, and: \.text, on: b, and: \.text, on: c)
    }
    #expect(weakA != nil && weakB != nil && weakC != nil)
    subject.send(completion: .finished)
    // CombineExt builds it on `sink`, which lets go of its closure at the completion.
    #expect(weakA == nil && weakB == nil && weakC == nil)
    #expect(cancellable != nil)
  }

  @Test func demand_isUnlimited() {
    let upstream = TestPublisher<String, Never>()
    let (a, b) = (Label(), Label())
    let cancellable = upstream.assign(to: \.text, on: a, and: \.text, on: b)
    #expect(upstream.requests == [.demand(.unlimited)])
    cancellable.cancel()
    #expect(upstream.requests == [.demand(.unlimited), .cancel])
  }
}
