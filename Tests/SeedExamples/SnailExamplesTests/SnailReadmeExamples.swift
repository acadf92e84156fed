// swift-format-ignore-file
// The Swift examples of Snail's README (seeds/004), compiled against StreamKit.
//
// Each example is the README's code with `import Snail` replaced by the imports below;
// statements the README shows loose are wrapped in functions. The README writes `...` for "your
// code here"; such placeholders are filled with the least code that compiles, marked `Filled:`.
// Where the README's code can't compile by design, a comment says why and which entry of
// Docs/Migration/FromSnail.md covers it, and the example is left out.
//
// Snail's delivery rules are being changed alongside this target, so the examples are compiled
// but not run, except the one test at the end, whose result doesn't depend on those rules.
// The README's Carthage, CocoaPods and `Package.swift` lines are not Swift to compile.

import Dispatch
import PropertyWrappers
import SignalOperators
import StreamCore
import Testing
import StreamSnail

// Left out: `Observable<thing>()` and `Variable<whatever>(some initial value)` are placeholders,
// and Snail's `Observable<T>` is a `PassthroughSubject` here (FromSnail.md, row
// `Observable<T>()`), as are the operator examples built on `Observable<Int>()`.

// Left out: the `MyViewController` extension has statements outside a function, and the
// `Closure { … }.add(to: Disposer)` example passes the type `Disposer` for an instance; neither
// compiles in Snail either. UIKit examples (`UIControl`, `UIButton`, gestures, bar buttons) need
// UIKit (FromSnail.md, "UIKit and Foundation extensions").

func variableExamples(disposer: Disposer) {
let optionalString = Variable<String?>(nil)
optionalString.asObservable().subscribe(
    onNext: { string in _ = string } // Filled: `...`; do something with value changes
).add(to: disposer)
optionalString.value = "something"

let int = Variable<Int>(12)
int.asObservable().subscribe(
    onNext: { int in _ = int } // Filled: `...`; do something with value changes
).add(to: disposer)
int.value = 42
}

// Adapted: `viewModel.isLoading = true` assigns a `Bool` to a `Variable` (in Snail too); it is
// `viewModel.isLoading.value = true` (FromSnail.md, row `a.bind(to: b) -> Subscriber<T>`).
func bindExample(viewModel: LoadingViewModel) -> Bool {
let isLoaderAnimating = Variable<Bool>(false)
isLoaderAnimating.bind(to: viewModel.isLoading) // forward changes from one Variable to another
viewModel.isLoading.value = true
return isLoaderAnimating.value // true
}

// Left out: the `merge` and `combineLatest` examples close `onNext: {` with `})`, which doesn't
// parse; Snail's `merge`/`combineLatest` are Combine's here (FromSnail.md, row `merge`).
// Left out: `Fail(TestError.test)` is `Fail(error: TestError.test)` and `Replay(n)` needs its
// element type (FromSnail.md, rows `Just<T>(x), Fail<T>(e)` and `Replay<T>(n)`).
func miscellaneousExample() -> Just<Int> {
let just = Just(1) // always returns the initial value (1 in this case)
return just  // added: uses the value
}

@Suite(.timeLimit(.minutes(5))) struct SnailReadmeExamplesTests {
  /// "isLoaderAnimating.bind(to: viewModel.isLoading) … print(isLoaderAnimating.value) // true".
  @Test func bind_forwardsTheChange() {
    #expect(bindExample(viewModel: LoadingViewModel()))
  }
}

/// The view model the README binds to.
final class LoadingViewModel {
  let isLoading = Variable<Bool>(false)
}
