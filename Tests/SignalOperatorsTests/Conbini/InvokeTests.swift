import SignalOperators
import StreamConbini
import StreamCore
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct InvokeTests {
  final class Screen {
    var rendered: [Int] = []
    var cancellable: AnyCancellable?
    func render(_ value: Int) { rendered.append(value) }
  }

  struct Logger {
    let lines: LockedState<[Int]>
    func log(_ value: Int) { lines.withLock { $0.append(value) } }
  }

  let upstream = TestPublisher<Int, Never>()

  @Test func on_callsTheMethodOnAValue() {
    let lines = LockedState<[Int]>([])
    let cancellable = [1, 2, 3].publisher.invoke(Logger.log, on: Logger(lines: lines))
    #expect(lines.withLock { $0 } == [1, 2, 3])
    _ = cancellable
  }

  @Test func on_holdsTheInstanceUntilCancel() {
    weak var weakScreen: Screen?
    let cancellable: AnyCancellable
    do {
      let screen = Screen()
      weakScreen = screen
      cancellable = upstream.invoke(Screen.render, on: screen)
    }
    upstream.send(1)
    #expect(weakScreen?.rendered == [1])
    cancellable.cancel()
    #expect(weakScreen == nil)
    #expect(upstream.requests == [.demand(.unlimited), .cancel])
  }

  @Test func onWeak_callsTheMethodAndDoesNotRetain() {
    weak var weakScreen: Screen?
    do {
      let screen = Screen()
      weakScreen = screen
      screen.cancellable = upstream.invoke(Screen.render, onWeak: screen)
      upstream.send(1)
      upstream.send(2)
      #expect(screen.rendered == [1, 2])
    }
    #expect(weakScreen == nil)
    #expect(upstream.requests == [.demand(.unlimited), .cancel])
  }

  @Test func onWeak_objectGone_nextValueCancelsTheSubscription() {
    var screen: Screen? = Screen()
    let cancellable = upstream.invoke(Screen.render, onWeak: screen!)
    screen = nil
    upstream.send(1)
    #expect(upstream.requests == [.demand(.unlimited), .cancel])
    _ = cancellable
  }

  @Test func onUnowned_callsTheMethodAndDoesNotRetain() {
    weak var weakScreen: Screen?
    do {
      let screen = Screen()
      weakScreen = screen
      screen.cancellable = upstream.invoke(Screen.render, onUnowned: screen)
      upstream.send(3)
      #expect(screen.rendered == [3])
    }
    #expect(weakScreen == nil)
    #expect(upstream.requests == [.demand(.unlimited), .cancel])
  }

  @Test func cancel_stopsCalls() {
    let screen = Screen()
    let cancellable = upstream.invoke(Screen.render, onWeak: screen)
    cancellable.cancel()
    upstream.send(1)
    #expect(screen.rendered.isEmpty)
  }
}
