import SignalOperators
import StreamConbini
import StreamCore
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct AssignWeakTests {
  final class Model {
    var count = 0
    var cancellable: AnyCancellable?
  }

  let upstream = TestPublisher<Int, Never>()

  @Test func weak_assignsEachValue() {
    let model = Model()
    let cancellable = upstream.assign(to: \.count, onWeak: model)
    upstream.send(1)
    upstream.send(2)
    #expect(model.count == 2)
    #expect(upstream.requests == [.demand(.unlimited)])
    _ = cancellable
  }

  @Test func weak_storedOnTheObject_noRetainCycle() {
    weak var weakModel: Model?
    do {
      let model = Model()
      weakModel = model
      model.cancellable = upstream.assign(to: \.count, onWeak: model)
      upstream.send(1)
      #expect(model.count == 1)
    }
    #expect(weakModel == nil)
    // The model's token cancelled the subscription when the model went away.
    #expect(upstream.requests == [.demand(.unlimited), .cancel])
  }

  @Test func weak_objectGone_nextValueCancelsTheSubscription() {
    var model: Model? = Model()
    let cancellable = upstream.assign(to: \.count, onWeak: model!)
    model = nil
    #expect(upstream.requests == [.demand(.unlimited)])
    upstream.send(1)
    #expect(upstream.requests == [.demand(.unlimited), .cancel])
    upstream.send(2)
    #expect(upstream.violations.isEmpty)
    _ = cancellable
  }

  @Test func weak_cancel_stopsAssigning() {
    let model = Model()
    let cancellable = upstream.assign(to: \.count, onWeak: model)
    upstream.send(1)
    cancellable.cancel()
    cancellable.cancel()
    upstream.send(2)
    #expect(model.count == 1)
    #expect(upstream.requests == [.demand(.unlimited), .cancel])
  }

  @Test func weak_afterCompletion_laterValuesIgnored() {
    let model = Model()
    let cancellable = [1, 2, 3].publisher.assign(to: \.count, onWeak: model)
    #expect(model.count == 3)
    cancellable.cancel()
  }

  @Test func unowned_assignsEachValueWithoutRetaining() {
    weak var weakModel: Model?
    do {
      let model = Model()
      weakModel = model
      model.cancellable = upstream.assign(to: \.count, onUnowned: model)
      upstream.send(4)
      #expect(model.count == 4)
    }
    #expect(weakModel == nil)
    #expect(upstream.requests == [.demand(.unlimited), .cancel])
  }
}
