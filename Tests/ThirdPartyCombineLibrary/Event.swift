// A library written for Combine, with only `import Combine` replaced by StreamKit's Combine
// modules. It declares, under its own names, types and operators that other libraries (CombineExt,
// Entwine, Snail, SwiftySignals, Propagate) also declare: the Combine modules must declare none of
// them, or every use below is ambiguous. CI builds this target and its tests; see
// Tests/ThirdPartyCombineLibraryTests.

import SignalOperators
import StreamCore

/// A publisher's event as a value: what `materialize()` sends.
public enum Event<Output, Failure: Error> {
  case value(Output)
  case failure(Failure)
  case finished
}

extension Event: Equatable where Output: Equatable, Failure: Equatable {}
