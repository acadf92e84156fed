public import StreamCore

/// One FIFO of unpaired values per upstream, for `zip`.
@usableFromInline
protocol ZipQueues: CombiningStorage {
  /// Whether every queue holds a value.
  var isReady: Bool { get }

  /// Whether queue `index` is empty.
  func isEmpty(at index: Int) -> Bool

  /// Removes the first value of every queue; only called when ``isReady``.
  mutating func takeOutput() -> Output
}

/// The unpaired values of two upstreams.
@usableFromInline
struct ZipQueues2<Value0, Value1>: ZipQueues, CombiningStorage2 {
  @usableFromInline var queue0 = RingBuffer<Value0>()
  @usableFromInline var queue1 = RingBuffer<Value1>()

  @usableFromInline typealias Output = (Value0, Value1)

  @inlinable static var arity: Int { 2 }
  @inlinable init() {}
  @inlinable mutating func put0(_ value: Value0) -> Value0? {
    queue0.append(value)
    return nil
  }
  @inlinable mutating func put1(_ value: Value1) -> Value1? {
    queue1.append(value)
    return nil
  }
  @inlinable var isReady: Bool { !queue0.isEmpty && !queue1.isEmpty }

  @inlinable
  func isEmpty(at index: Int) -> Bool {
    index == 0 ? queue0.isEmpty : queue1.isEmpty
  }

  @inlinable
  mutating func takeOutput() -> (Value0, Value1) {
    (queue0.popFirst()!, queue1.popFirst()!)
  }
}

/// The unpaired values of three upstreams.
@usableFromInline
struct ZipQueues3<Value0, Value1, Value2>: ZipQueues,
  CombiningStorage3
{
  @usableFromInline var queue0 = RingBuffer<Value0>()
  @usableFromInline var queue1 = RingBuffer<Value1>()
  @usableFromInline var queue2 = RingBuffer<Value2>()

  @usableFromInline typealias Output = (Value0, Value1, Value2)

  @inlinable static var arity: Int { 3 }
  @inlinable init() {}
  @inlinable mutating func put0(_ value: Value0) -> Value0? {
    queue0.append(value)
    return nil
  }
  @inlinable mutating func put1(_ value: Value1) -> Value1? {
    queue1.append(value)
    return nil
  }
  @inlinable mutating func put2(_ value: Value2) -> Value2? {
    queue2.append(value)
    return nil
  }
  @inlinable var isReady: Bool { !queue0.isEmpty && !queue1.isEmpty && !queue2.isEmpty }

  @inlinable
  func isEmpty(at index: Int) -> Bool {
    switch index {
    case 0: queue0.isEmpty
    case 1: queue1.isEmpty
    default: queue2.isEmpty
    }
  }

  @inlinable
  mutating func takeOutput() -> (Value0, Value1, Value2) {
    (queue0.popFirst()!, queue1.popFirst()!, queue2.popFirst()!)
  }
}

/// The unpaired values of four upstreams.
@usableFromInline
struct ZipQueues4<Value0, Value1, Value2, Value3>: ZipQueues,
  CombiningStorage4
{
  @usableFromInline var queue0 = RingBuffer<Value0>()
  @usableFromInline var queue1 = RingBuffer<Value1>()
  @usableFromInline var queue2 = RingBuffer<Value2>()
  @usableFromInline var queue3 = RingBuffer<Value3>()

  @usableFromInline typealias Output = (Value0, Value1, Value2, Value3)

  @inlinable static var arity: Int { 4 }
  @inlinable init() {}
  @inlinable mutating func put0(_ value: Value0) -> Value0? {
    queue0.append(value)
    return nil
  }
  @inlinable mutating func put1(_ value: Value1) -> Value1? {
    queue1.append(value)
    return nil
  }
  @inlinable mutating func put2(_ value: Value2) -> Value2? {
    queue2.append(value)
    return nil
  }
  @inlinable mutating func put3(_ value: Value3) -> Value3? {
    queue3.append(value)
    return nil
  }

  @inlinable
  var isReady: Bool {
    !queue0.isEmpty && !queue1.isEmpty && !queue2.isEmpty && !queue3.isEmpty
  }

  @inlinable
  func isEmpty(at index: Int) -> Bool {
    switch index {
    case 0: queue0.isEmpty
    case 1: queue1.isEmpty
    case 2: queue2.isEmpty
    default: queue3.isEmpty
    }
  }

  @inlinable
  mutating func takeOutput() -> (Value0, Value1, Value2, Value3) {
    (queue0.popFirst()!, queue1.popFirst()!, queue2.popFirst()!, queue3.popFirst()!)
  }
}
