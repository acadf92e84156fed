/// Calls `body` with the value stored at `address`, without the retain and release that a copy
/// of it takes.
///
/// Swift copies a subscriber out of a class's `var` to call it (a retain and a release, two
/// atomic instructions, when the subscriber is or holds a reference), because the call might
/// replace what the `var` holds. A thread that owns delivery by a protocol of its own (a
/// subject's conduit, `merge`'s subscription) knows that nothing replaces or releases the stored
/// subscriber until it lets go, not even a re-entrant cancel or completion from inside `body`;
/// it calls this instead.
///
/// The storage is only read: the value is moved out of it (a load of its bits, which stay where
/// they are, so a re-entrant call finds it in place) for `body`, then moved into a stack buffer
/// that is dropped without a release. A value larger than the buffer (none of our subscribers
/// is) is moved back into its storage instead, which writes the same bits again.
///
/// - Precondition: `address` holds an initialised `Value`, and nothing writes it until `body`
///   returns.
@inlinable
@inline(__always)
package func withBorrowedValue<Value, Result>(
  at address: UnsafeRawPointer,
  as type: Value.Type,
  _ body: (borrowing Value) -> Result
) -> Result {
  let stored = UnsafeMutablePointer(mutating: address.assumingMemoryBound(to: Value.self))
  var scratch: (Int, Int, Int, Int, Int, Int, Int, Int) = (0, 0, 0, 0, 0, 0, 0, 0)
  let fits =
    MemoryLayout<Value>.size <= MemoryLayout.size(ofValue: scratch)
    && MemoryLayout<Value>.alignment <= MemoryLayout<Int>.alignment
  return withUnsafeMutableBytes(of: &scratch) { bytes in
    let value = stored.move()
    let result = body(value)
    if fits {
      bytes.baseAddress.unsafelyUnwrapped.assumingMemoryBound(to: Value.self)
        .initialize(to: consume value)
    } else {
      stored.initialize(to: consume value)
    }
    return result
  }
}
