import SignalOperators
import StreamConbini
import StreamSnail
import Testing

@Suite(.timeLimit(.minutes(5))) struct ClosureTests {
  @Test func dispose_releasesTheClosure() {
    weak var weakCaptured: SnailDisposeLog?
    let holder: Closure<@Sendable () -> Void>
    do {
      let captured = SnailDisposeLog()
      weakCaptured = captured
      holder = Closure { @Sendable in captured.append("called") }
    }
    holder.closure?()
    #expect(weakCaptured?.entries == ["called"])
    holder.dispose()
    #expect(holder.closure == nil)
    #expect(weakCaptured == nil)
  }

  @Test func addToDisposer_returnsHolderThatDisposeAllEmpties() {
    let disposer = Disposer()
    let holder = Closure { @Sendable (value: Int) in value * 2 }.add(to: disposer)
    #expect(holder.closure?(2) == 4)
    disposer.disposeAll()
    #expect(holder.closure == nil)
  }
}
