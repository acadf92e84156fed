// A client of a third-party Combine library (Tests/ThirdPartyCombineLibrary) that imports it
// together with every Combine module, as a port does. The library's names (`Event`,
// `Publishers.WithLatestFrom`, `ReplaySubject`, `Signal`, `Promise`, `materialize()`, …) are used
// unqualified: if a Combine module declared any of them too, this file would not compile
// ("ambiguous"). The tests check that the library's own operators are the ones that run.

import FutureKit
import PropertyWrappers
import SignalOperators
import StreamCore
import StreamFoundation
import Testing
import ThirdPartyCombineLibrary

@Suite(.timeLimit(.minutes(5))) struct ThirdPartyCombineLibraryTests {
  @Test func materializeAndDematerialize_areTheLibrarys() {
    var events: [Event<Int, Never>] = []
    let materialized: Publishers.Materialize<Publishers.Sequence<[Int], Never>> =
      [1, 2].publisher.materialize()
    let cancellable = materialized.sink { events.append($0) }
    #expect(events == [.value(1), .value(2), .finished])

    var values: [Int] = []
    let back:
      Publishers.Dematerialize<Publishers.Sequence<[Event<Int, Never>], Never>, Int, Never> =
        events.publisher.dematerialize()
    let second = back.sink { values.append($0) }
    #expect(values == [1, 2])
    withExtendedLifetime((cancellable, second)) {}
  }

  @Test func withLatestFrom_pairsWithTheOthersLatestValue() {
    let taps = PassthroughSubject<Int, Never>()
    let text = PassthroughSubject<String, Never>()
    var pairs: [String] = []
    let publisher:
      Publishers.WithLatestFrom<PassthroughSubject<Int, Never>, PassthroughSubject<String, Never>> =
        taps.withLatestFrom(text)
    let cancellable = publisher.sink { pairs.append("\($0.0)\($0.1)") }
    taps.send(0)
    text.send("a")
    taps.send(1)
    text.send("b")
    taps.send(2)
    #expect(pairs == ["1a", "2b"])
    cancellable.cancel()
  }

  @Test func amb_mirrorsTheFirstToSend() {
    let first = PassthroughSubject<Int, Never>()
    let second = PassthroughSubject<Int, Never>()
    var received: [Int] = []
    let race: Publishers.Amb<PassthroughSubject<Int, Never>, PassthroughSubject<Int, Never>> =
      first.amb(second)
    let cancellable = race.sink { received.append($0) }
    second.send(10)
    first.send(1)
    second.send(20)
    #expect(received == [10, 20])
    cancellable.cancel()
  }

  @Test func create_runsItsClosurePerSubscriber() {
    let numbers = Publishers.Create<Int, Never> { subject in
      subject.send(1)
      subject.send(completion: .finished)
    }
    var received: [Int] = []
    let cancellable = numbers.sink { received.append($0) }
    #expect(received == [1])
    cancellable.cancel()
  }

  @Test func replaySubjectAndShareReplay_areTheLibrarys() {
    let subject = ReplaySubject<Int, Never>(bufferSize: 2)
    subject.send(1)
    subject.send(2)
    subject.send(3)
    var received: [Int] = []
    let cancellable = subject.sink { received.append($0) }
    #expect(received == [2, 3])

    let source = PassthroughSubject<Int, Never>()
    let shared = source.share(replay: 1)
    var first: [Int] = []
    let a = shared.sink { first.append($0) }
    source.send(7)
    var late: [Int] = []
    let b = shared.sink { late.append($0) }
    #expect(first == [7])
    #expect(late == [7])
    withExtendedLifetime((cancellable, a, b)) {}
  }

  @Test func signalRelayAndPromise_areTheLibrarys() {
    let signal = Signal<Int, Never>()
    var fired: [Int] = []
    let a = signal.publisher.sink { fired.append($0) }
    signal.fire(5)
    #expect(fired == [5])

    let relay = CurrentValueRelay(1)
    var seen: [Int] = []
    let b = relay.publisher().sink { seen.append($0) }
    relay.accept(2)
    #expect(seen == [1, 2])
    #expect(relay.value == 2)

    let promise = Promise<Int, Never>()
    var results: [Int] = []
    let c = promise.result.sink { if case .success(let value) = $0 { results.append(value) } }
    promise.resolve(42)
    #expect(results == [42])
    withExtendedLifetime((a, b, c)) {}
  }
}
