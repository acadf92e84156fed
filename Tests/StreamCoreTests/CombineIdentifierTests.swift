import Foundation
import StreamCore
import Testing

@Suite(.timeLimit(.minutes(5))) struct CombineIdentifierTests {
  @Test func init_givesUniqueValues() {
    let identifiers = (0..<1_000).map { _ in CombineIdentifier() }
    #expect(Set(identifiers).count == 1_000)
  }

  @Test func sameObject_givesEqualIdentifiers() {
    let object = Identified()
    #expect(CombineIdentifier(object) == CombineIdentifier(object))
    #expect(CombineIdentifier(object).hashValue == CombineIdentifier(object).hashValue)
    #expect(object.combineIdentifier == CombineIdentifier(object))
  }

  @Test func differentObjects_giveDifferentIdentifiers() {
    let objects = (0..<100).map { _ in Identified() }
    let identifiers = Set(objects.map { CombineIdentifier($0) })
    #expect(identifiers.count == objects.count)
    #expect(Set(objects.map(\.combineIdentifier)) == identifiers)
  }

  @Test func objectIdentifier_differsFromCounterIdentifiers() {
    let objects = (0..<100).map { _ in Identified() }
    let fromObjects = Set(objects.map { CombineIdentifier($0) })
    let fromCounter = Set((0..<100).map { _ in CombineIdentifier() })
    #expect(fromObjects.isDisjoint(with: fromCounter))
  }

  @Test func description_isHexadecimalWithPrefix() {
    let object = Identified()
    for identifier in [CombineIdentifier(), CombineIdentifier(object)] {
      let description = identifier.description
      #expect(description.hasPrefix("0x"))
      let digits = description.dropFirst(2)
      #expect(!digits.isEmpty)
      #expect(UInt64(digits, radix: 16) != nil)
    }
    #expect(String(describing: CombineIdentifier(object)) == CombineIdentifier(object).description)
  }

  /// The source promises that counter values "never equal an identifier made from an object"
  /// because object addresses never have the top bit set; so an object's identifier must not
  /// have it set either.
  @Test func objectIdentifier_neverHasTheCounterBitSet() {
    let objects = (0..<64).map { _ in Identified() }
    let withTopBit = objects.map { CombineIdentifier($0).description }.filter {
      UInt64($0.dropFirst(2), radix: 16).map { $0 & (1 << 63) != 0 } ?? true
    }
    #expect(withTopBit == [])
  }

  /// As in Combine, an object's identifier is its address.
  @Test func objectIdentifier_isTheObjectAddress() {
    let object = Identified()
    let address = UInt(bitPattern: ObjectIdentifier(object))
    #expect(CombineIdentifier(object).description == "0x" + String(address, radix: 16))
  }

  @Test func initFromManyThreads_givesUniqueValues() {
    let collected = LockedIdentifiers()
    DispatchQueue.concurrentPerform(iterations: 8) { _ in
      let batch = (0..<1_000).map { _ in CombineIdentifier() }
      collected.append(contentsOf: batch)
    }
    let all = collected.values
    #expect(all.count == 8_000)
    #expect(Set(all).count == 8_000)
  }
}

// MARK: - Helpers

/// A class that takes the default, identity-based ``CombineIdentifier``.
private final class Identified: CustomCombineIdentifierConvertible {}

/// Identifiers gathered from several threads.
// Sendable: `_values` is guarded by `lock`.
private final class LockedIdentifiers: @unchecked Sendable {
  private let lock = Lock()
  private var _values: [CombineIdentifier] = []

  var values: [CombineIdentifier] { lock.withLock { _values } }

  func append(contentsOf identifiers: [CombineIdentifier]) {
    lock.withLock { _values.append(contentsOf: identifiers) }
  }
}
