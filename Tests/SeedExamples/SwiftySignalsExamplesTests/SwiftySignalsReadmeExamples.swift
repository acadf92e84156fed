// swift-format-ignore-file
// The Swift examples of SwiftySignals' README (seeds/002), compiled against StreamKit.
//
// Each example is the README's code with `import SwiftySignals` replaced by the imports below;
// statements the README shows loose are wrapped in functions. Where the README's code can't
// compile by design, a comment says why and which entry of Docs/Migration/FromSwiftySignals.md
// covers it, and the example is left out or adapted, marked `Adapted:`.
//
// SwiftySignals' delivery rules are being changed alongside this target, so the examples are
// compiled but not run, except the one test at the end, whose result doesn't depend on them.

import Dispatch
import PropertyWrappers
import SignalOperators
import StreamCore
import Testing
import StreamSwiftySignals

// Left out: every modifier chain of the README ends in `.append(to: observables)` on an end
// point; here a chain ends in `sink { … }` and the `AnyCancellable` is appended (FromSwiftySignals.md,
// row `.then { … }` + `.append(to: observables)`). `Signal<Int>(value: 15)` never existed
// (Signal has only `init()`), `Observables()` is `ObservableCollection()`, the timer example
// writes `.print` and leaves a parenthesis open, the view controller overrides `viewDidLoad`
// without a superclass, and `DispatchQoS.main` doesn't exist: those compile in neither library.

// Adapted: `Signal<Int>(value: 15)` never existed; `Signal<Int>()`.
func signalExample() -> ObservableCollection {
let signal = Signal<Int>()
let observables = ObservableCollection()
signal.fire(with: 20)
return observables  // added: uses the value
}

// Adapted: the README's loop variable `i` is unused, which warns; `_`.
func propertyExample() -> Property<Int> {
let property = Property<Int>(value: 0)
for _ in 0..<10 {
    property.value += 1
}
return property  // added: uses the value
}

@Suite(.timeLimit(.minutes(5))) struct SwiftySignalsReadmeExamplesTests {
  /// "Whenever the value is modified, the new value is send": ten increments leave 10.
  @Test func property_endsAtTen() {
    #expect(propertyExample().value == 10)
  }
}
