import SignalOperators
import StreamCore
import Testing

// The general operators (`Publisher.map`, …) are in SignalOperators too; these tests show that
// the concrete-type overloads win for Just, Optional.Publisher, Result.Publisher and
// Publishers.Sequence, as in Combine.
@Suite(.timeLimit(.minutes(5))) struct SpecializedOverloadTests {
  @Test func just_prefersItsOwnOverloads() {
    #expect(type(of: Just(1).map { $0 + 1 }) == Just<Int>.self)
    #expect(type(of: Just(1).tryMap { $0 + 1 }) == Result<Int, any Error>.Publisher.self)
    #expect(type(of: Just(1).filter { $0 > 0 }) == Optional<Int>.Publisher.self)
    #expect(type(of: Just(1).count()) == Just<Int>.self)
    #expect(type(of: Just(1).collect()) == Just<[Int]>.self)
    #expect(type(of: Just(1).reduce(0, +)) == Result<Int, Never>.Publisher.self)
    #expect(type(of: Just(1).dropFirst()) == Optional<Int>.Publisher.self)
    #expect(type(of: Just(1).contains(1)) == Just<Bool>.self)
    #expect(type(of: Just(1).min()) == Just<Int>.self)
    #expect(type(of: Just(1).ignoreOutput()) == Empty<Int, Never>.self)
    #expect(type(of: Just(1).append(2)) == Publishers.Sequence<[Int], Never>.self)
    #expect(
      type(of: Just(1).setFailureType(to: TestError.self))
        == Result<Int, TestError>.Publisher.self
    )
  }

  @Test func sequence_prefersItsOwnOverloads() {
    let p = [1, 2, 3].publisher
    #expect(type(of: p.map { $0 + 1 }) == Publishers.Sequence<[Int], Never>.self)
    #expect(type(of: p.filter { $0 > 1 }) == Publishers.Sequence<[Int], Never>.self)
    #expect(type(of: p.count()) == Just<Int>.self)
    #expect(type(of: p.collect()) == Result<[Int], Never>.Publisher.self)
    #expect(type(of: p.reduce(0, +)) == Result<Int, Never>.Publisher.self)
    #expect(type(of: p.dropFirst()) == Publishers.Sequence<DropFirstSequence<[Int]>, Never>.self)
    #expect(type(of: p.first()) == Optional<Int>.Publisher.self)
    #expect(type(of: p.output(at: 1)) == Optional<Int>.Publisher.self)
    #expect(type(of: p.contains(1)) == Result<Bool, Never>.Publisher.self)
    #expect(type(of: p.min()) == Optional<Int>.Publisher.self)
    #expect(type(of: p.append(4)) == Publishers.Sequence<[Int], Never>.self)
    #expect(
      type(of: p.setFailureType(to: TestError.self))
        == Publishers.Sequence<[Int], TestError>.self
    )
  }

  @Test func optional_prefersItsOwnOverloads() {
    let p = Optional(1).publisher
    #expect(type(of: p.map { $0 + 1 }) == Optional<Int>.Publisher.self)
    #expect(type(of: p.filter { $0 > 1 }) == Optional<Int>.Publisher.self)
    #expect(type(of: p.count()) == Optional<Int>.Publisher.self)
    #expect(type(of: p.collect()) == Optional<[Int]>.Publisher.self)
    #expect(type(of: p.reduce(0, +)) == Optional<Int>.Publisher.self)
    #expect(type(of: p.first()) == Optional<Int>.Publisher.self)
    #expect(type(of: p.contains(1)) == Optional<Bool>.Publisher.self)
  }

  @Test func result_prefersItsOwnOverloads() {
    let p = Result<Int, TestError>.Publisher(1)
    #expect(type(of: p.map { $0 + 1 }) == Result<Int, TestError>.Publisher.self)
    #expect(type(of: p.tryMap { $0 + 1 }) == Result<Int, any Error>.Publisher.self)
    #expect(type(of: p.count()) == Result<Int, TestError>.Publisher.self)
    #expect(type(of: p.reduce(0, +)) == Result<Int, TestError>.Publisher.self)
    #expect(type(of: p.contains(1)) == Result<Bool, TestError>.Publisher.self)
    // As Combine's: an `Empty` whatever the failure type (OpenCombine's
    // `ResultPublisherTests.testIgnoreOutputOperatorSpecialization`).
    #expect(type(of: p.ignoreOutput()) == Empty<Int, TestError>.self)
  }
}
