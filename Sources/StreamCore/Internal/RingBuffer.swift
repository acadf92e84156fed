/// The one FIFO queue of StreamKit: O(1) append and `popFirst()`, storage reused in steady state.
///
/// Operators keep it inside the state their ``Lock`` guards. A popped slot is cleared at once, so
/// a value leaves the queue (and is released) when it is taken, not when the queue next grows.
/// Dropping many values at once goes through ``takeAll()``, whose result the caller lets go of
/// after the lock, because a value's `deinit` can run user code.
@usableFromInline
package struct RingBuffer<Element> {
  @usableFromInline
  var slots: ContiguousArray<Element?>
  @usableFromInline
  var head = 0
  /// The number of queued elements.
  @usableFromInline
  package private(set) var count = 0

  /// An empty queue; it allocates on the first append.
  @inlinable
  package init() {
    slots = []
  }

  /// Whether nothing is queued.
  @inlinable
  package var isEmpty: Bool { count == 0 }

  /// The oldest element, if any.
  @inlinable
  package var first: Element? { count == 0 ? nil : slots[head] }

  /// Adds `element` at the back.
  @inlinable
  package mutating func append(_ element: Element) {
    if count == slots.count { grow() }
    var index = head &+ count
    if index >= slots.count { index &-= slots.count }
    slots[index] = element
    count &+= 1
  }

  /// Adds `element` at the back, keeping at most `limit` elements; returns the oldest element
  /// dropped to make room (or `element` itself when `limit` is zero).
  @inlinable
  package mutating func append(_ element: Element, limit: Int) -> Element? {
    guard limit > 0 else { return element }
    let dropped = count >= limit ? popFirst() : nil
    append(element)
    return dropped
  }

  /// Removes and returns the oldest element, if any.
  @inlinable
  package mutating func popFirst() -> Element? {
    guard count > 0 else { return nil }
    let element = slots[head].take()
    head &+= 1
    if head == slots.count { head = 0 }
    count &-= 1
    return element
  }

  /// Removes and returns the newest element, if any.
  @inlinable
  package mutating func popLast() -> Element? {
    guard count > 0 else { return nil }
    var index = head &+ count &- 1
    if index >= slots.count { index &-= slots.count }
    count &-= 1
    return slots[index].take()
  }

  /// Empties the queue and returns what it held, to be released after the lock.
  @inlinable
  package mutating func takeAll() -> RingBuffer {
    var taken = RingBuffer()
    swap(&taken, &self)
    return taken
  }

  /// Doubles the capacity, moving the elements to the front.
  ///
  /// The new slots are initialised in place: this code runs unspecialised, and filling them with
  /// `append(contentsOf: repeatElement(nil, …))` would go through `Repeated`'s generic
  /// subscript, whose read accessor allocates a frame per element.
  @usableFromInline
  mutating func grow() {
    let capacity = Swift.max(4, slots.count &* 2)
    let moved = count
    let grown = ContiguousArray<Element?>(unsafeUninitializedCapacity: capacity) {
      buffer,
      initialized in
      let base = buffer.baseAddress.unsafelyUnwrapped
      for offset in 0..<moved {
        var index = head &+ offset
        if index >= slots.count { index &-= slots.count }
        (base + offset).initialize(to: slots[index].take())
      }
      for offset in moved..<capacity {
        (base + offset).initialize(to: nil)
      }
      initialized = capacity
    }
    slots = grown
    head = 0
  }
}

extension RingBuffer: Sequence {
  /// Iterates from the oldest element to the newest without removing them.
  @usableFromInline
  package struct Iterator: IteratorProtocol {
    @usableFromInline
    let buffer: RingBuffer
    @usableFromInline
    var offset = 0

    @inlinable
    init(buffer: RingBuffer) {
      self.buffer = buffer
    }

    @inlinable
    package mutating func next() -> Element? {
      guard offset < buffer.count else { return nil }
      var index = buffer.head &+ offset
      if index >= buffer.slots.count { index &-= buffer.slots.count }
      offset &+= 1
      return buffer.slots[index]
    }
  }

  @inlinable
  package func makeIterator() -> Iterator { Iterator(buffer: self) }

  @inlinable
  package var underestimatedCount: Int { count }
}

extension RingBuffer: Sendable where Element: Sendable {}
