/// The failure the SwiftySignals tests send.
struct SwiftyTestError: Error, Equatable {}

/// An object whose method records the values it is called with.
final class SwiftyTarget {
  var received: [Int] = []

  func update(_ value: Int) {
    received.append(value)
  }
}
