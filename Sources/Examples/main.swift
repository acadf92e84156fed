// A short tour of what StreamKit has today, one module after another. Run it with
// `swift run Examples`. Each module's scenarios are in `Tour+<Module>.swift`.

tourStreamCore()
tourSignalOperators()
tourFutureKit()
tourStreamTesting()
// Last: it ends in `dispatchMain()` and never returns.
tourPropertyWrappers()
