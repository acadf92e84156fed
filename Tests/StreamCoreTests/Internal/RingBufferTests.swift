import Testing

@testable import StreamCore

@Suite(.timeLimit(.minutes(5))) struct RingBufferTests {
  @Test func popFirst_returnsValuesInAppendOrder() {
    var ring = RingBuffer<Int>()
    for value in 1...10 { ring.append(value) }
    var popped: [Int] = []
    while let value = ring.popFirst() { popped.append(value) }
    #expect(popped == Array(1...10))
    #expect(ring.isEmpty)
  }

  @Test func wrapsAroundWithoutGrowing_inSteadyState() {
    var ring = RingBuffer<Int>()
    for value in 0..<3 { ring.append(value) }
    let capacity = ring.slots.count
    var popped: [Int] = []
    for value in 3..<1_000 {
      ring.append(value)
      popped.append(ring.popFirst()!)
    }
    #expect(ring.slots.count == capacity)
    #expect(popped == Array(0..<997))
    #expect(Array(ring) == [997, 998, 999])
  }

  @Test func grow_keepsOrderWhenTheQueueHasWrapped() {
    var ring = RingBuffer<Int>()
    for value in 0..<4 { ring.append(value) }
    _ = ring.popFirst()
    _ = ring.popFirst()
    for value in 4..<9 { ring.append(value) }
    #expect(Array(ring) == Array(2..<9))
    #expect(ring.count == 7)
    #expect(ring.first == 2)
  }

  @Test func popLast_takesTheNewest() {
    var ring = RingBuffer<String>()
    ring.append("a")
    ring.append("b")
    let step1 = ring.popLast()
    #expect(step1 == "b")
    let step2 = ring.popLast()
    #expect(step2 == "a")
    let step3 = ring.popLast()
    #expect(step3 == nil)
  }

  @Test func appendWithLimit_dropsTheOldest() {
    var ring = RingBuffer<Int>()
    let step1 = ring.append(1, limit: 2)
    #expect(step1 == nil)
    let step2 = ring.append(2, limit: 2)
    #expect(step2 == nil)
    let step3 = ring.append(3, limit: 2)
    #expect(step3 == 1)
    #expect(Array(ring) == [2, 3])
    let step4 = ring.append(4, limit: 0)
    #expect(step4 == 4)
  }

  @Test func popFirst_releasesTheValueAtOnce() {
    final class Token {}
    var ring = RingBuffer<Token>()
    weak var weakToken: Token?
    do {
      let token = Token()
      weakToken = token
      ring.append(token)
    }
    _ = ring.popFirst()
    #expect(weakToken == nil)
  }

  @Test func takeAll_leavesAnEmptyQueueAndHandsOverTheValues() {
    var ring = RingBuffer<Int>()
    for value in 1...5 { ring.append(value) }
    let taken = ring.takeAll()
    #expect(ring.isEmpty)
    #expect(Array(taken) == [1, 2, 3, 4, 5])
  }
}
