/// Where a ``Future``'s kept `sink` (its `keptSink`) is.
@usableFromInline
package enum FutureSinkPhase: UInt8, Sendable {
  /// No sink is kept: the slot is free (or the future is complete and it will never be used).
  case empty
  /// A sink waits for the result.
  case waiting
  /// The completing thread is sending the value; `.finished` follows unless cancelled.
  case sending
}
