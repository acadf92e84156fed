// A short tour of what StreamKit has today, one module after another. Run it with
// `swift run Examples`. Each module's scenarios are in `Tour+<Module>.swift`; every line they
// print is the same on every run.

print("A tour of StreamKit: one short scenario after another, module by module.")
tourStreamCore()
tourSignalOperators()
tourFutureKit()
tourStreamTesting()
#if !canImport(Darwin)
tourStreamFoundation()
#endif
tourStreamObservation()
// Last: it ends in `dispatchMain()` and never returns; the program exits from the main queue.
tourPropertyWrappers()
