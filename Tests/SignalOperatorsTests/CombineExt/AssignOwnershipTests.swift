import SignalOperators
import StreamCombineExt
import StreamCore
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct AssignOwnershipTests {
  final class Model: @unchecked Sendable {
    var count = 0
    var name = ""
  }

  @Test func strong_assignsAndRetainsUntilCancel() {
    let subject = PassthroughSubject<Int, Never>()
    weak var weakModel: Model?
    var cancellable: AnyCancellable?
    do {
      let model = Model()
      weakModel = model
      cancellable = subject.assign(to: \.count, on: model, ownership: .strong)
    }
    subject.send(4)
    #expect(weakModel?.count == 4)
    cancellable?.cancel()
    #expect(weakModel == nil)
  }

  @Test func weak_assignsWhileAliveAndDoesNotRetain() {
    let subject = PassthroughSubject<Int, Never>()
    var model: Model? = Model()
    weak let weakModel = model
    let cancellable = subject.assign(to: \.count, on: model!, ownership: .weak)
    subject.send(2)
    #expect(model?.count == 2)
    model = nil
    #expect(weakModel == nil)
    subject.send(3)  // dropped, no trap
    cancellable.cancel()
  }

  @Test func unowned_assignsAndDoesNotRetain() {
    let subject = PassthroughSubject<Int, Never>()
    var model: Model? = Model()
    weak let weakModel = model
    let cancellable = subject.assign(to: \.count, on: model!, ownership: .unowned)
    subject.send(5)
    #expect(model?.count == 5)
    model = nil
    #expect(weakModel == nil)
    cancellable.cancel()
  }

  @Test func defaultOwnership_isStrong() {
    let subject = PassthroughSubject<Int, Never>()
    weak var weakModel: Model?
    var cancellable: AnyCancellable?
    do {
      let model = Model()
      weakModel = model
      cancellable = subject.assign(to: \.count, on: model)
    }
    #expect(weakModel != nil)
    subject.send(completion: .finished)
    #expect(weakModel == nil)
    _ = cancellable
  }

  @Test func twoAndThreeObjects_weak_assignToThoseStillAlive() {
    let subject = PassthroughSubject<Int, Never>()
    let kept = Model()
    var gone: Model? = Model()
    let third = Model()
    let two = subject.assign(to: \.count, on: kept, and: \.count, on: gone!, ownership: .weak)
    let three = subject.assign(
      to: \.count,
      on: kept,
      and: \.count,
      on: gone!,
      and: \.count,
      on: third,
      ownership: .weak
    )
    subject.send(1)
    #expect([kept.count, gone?.count, third.count] == [1, 1, 1])
    gone = nil
    subject.send(2)
    #expect([kept.count, third.count] == [2, 2])
    two.cancel()
    three.cancel()
  }

  @Test func twoAndThreeObjects_unownedAndStrong_assignAll() {
    let subject = PassthroughSubject<String, Never>()
    let (a, b, c) = (Model(), Model(), Model())
    let cancellables = [
      subject.assign(to: \.name, on: a, and: \.name, on: b, ownership: .unowned),
      subject.assign(
        to: \.name,
        on: a,
        and: \.name,
        on: b,
        and: \.name,
        on: c,
        ownership: .unowned
      ),
      subject.assign(to: \.name, on: c, and: \.name, on: b, ownership: .strong),
      subject.assign(
        to: \.name,
        on: c,
        and: \.name,
        on: b,
        and: \.name,
        on: a,
        ownership: .strong
      ),
    ]
    subject.send("x")
    #expect([a.name, b.name, c.name] == ["x", "x", "x"])
    for cancellable in cancellables { cancellable.cancel() }
    subject.send("y")
    #expect([a.name, b.name, c.name] == ["x", "x", "x"])
  }

  @Test func weakMany_doesNotRetain() {
    let subject = PassthroughSubject<Int, Never>()
    weak var weakA: Model?
    weak var weakB: Model?
    var cancellable: AnyCancellable?
    do {
      let (a, b) = (Model(), Model())
      (weakA, weakB) = (a, b)
      cancellable = subject.assign(to: \.count, on: a, and: \.count, on: b, ownership: .weak)
    }
    #expect(weakA == nil && weakB == nil)
    subject.send(1)
    _ = cancellable
  }
}
