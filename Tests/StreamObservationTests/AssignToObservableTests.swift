import Observation
import StreamConbini
import StreamCore
import StreamObservation
import StreamTesting
import Testing

/// The other direction: a pipeline driving an `@Observable` model. StreamObservation adds
/// nothing for it; these tests pin down which assign to use.
@Suite(.timeLimit(.minutes(5))) struct AssignToObservableTests {
  @Test func assignOnWeak_drivesTheModelAndObserversSeeIt() {
    let scheduler = TestScheduler()
    let upstream = PassthroughSubject<Int, Never>()
    let model = Counter()
    let assigned = upstream.assign(to: \.count, onWeak: model)
    let recorder = RecordingSubscriber<Int, Never>()
    model.publisher(for: \.count, scheduler: scheduler).subscribe(recorder)
    scheduler.advance()
    upstream.send(3)
    scheduler.advance()
    #expect(recorder.values == [0, 3])
    assigned.cancel()
  }

  @Test func assignOnWeak_inTheModelsOwnCancellables_leavesNoCycle() {
    final class Owner {
      let model = Counter()
      var cancellables: Set<AnyCancellable> = []
    }
    let upstream = PassthroughSubject<Int, Never>()
    var owner: Owner? = Owner()
    weak let released = owner?.model
    upstream.assign(to: \.count, onWeak: owner!.model).store(in: &owner!.cancellables)
    upstream.send(1)
    #expect(released?.count == 1)
    owner = nil
    #expect(released == nil)
  }

  @Test func assignOn_holdsTheModelUntilCancelled() {
    let upstream = PassthroughSubject<Int, Never>()
    var model: Counter? = Counter()
    weak let released = model
    let assigned = upstream.assign(to: \.count, on: model!)
    model = nil
    // Combine's `assign(to:on:)` holds its object strongly: kept in the model, it is a cycle.
    #expect(released != nil)
    assigned.cancel()
    #expect(released == nil)
  }
}
