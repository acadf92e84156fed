// The suite's `import Combine`: StreamKit's modules that declare Combine's API, re-exported, so
// that OpenCombine's tests compile unchanged in their compatibility mode.
@_exported import FutureKit
@_exported import PropertyWrappers
@_exported import SignalOperators
@_exported import StreamCore
@_exported import StreamFoundation
