import SignalOperators
import StreamCore
import Testing

// Stand-ins for the general operators with Combine's signatures (escaping closures, declared on
// `Publisher`). Once the general operators are merged into SignalOperators, these tests show
// that the concrete-type overloads still win for Just, Optional.Publisher, Result.Publisher and
// Publishers.Sequence.
extension Publisher {
  fileprivate func map<T>(_ transform: @escaping (Output) -> T) -> AnyPublisher<T, Failure> {
    AnyPublisher(Empty<T, Failure>())
  }

  fileprivate func tryMap<T>(
    _ transform: @escaping (Output) throws -> T
  ) -> AnyPublisher<T, any Error> {
    AnyPublisher(Empty<T, any Error>())
  }

  fileprivate func filter(_ isIncluded: @escaping (Output) -> Bool) -> AnyPublisher<Output, Failure>
  {
    AnyPublisher(Empty<Output, Failure>())
  }

  fileprivate func count() -> AnyPublisher<Int, Failure> {
    AnyPublisher(Empty<Int, Failure>())
  }

  fileprivate func collect() -> AnyPublisher<[Output], Failure> {
    AnyPublisher(Empty<[Output], Failure>())
  }

  fileprivate func reduce<T>(
    _ initialResult: T,
    _ nextPartialResult: @escaping (T, Output) -> T
  ) -> AnyPublisher<T, Failure> {
    AnyPublisher(Empty<T, Failure>())
  }

  fileprivate func dropFirst(_ count: Int = 1) -> AnyPublisher<Output, Failure> {
    AnyPublisher(Empty<Output, Failure>())
  }

  fileprivate func first() -> AnyPublisher<Output, Failure> {
    AnyPublisher(Empty<Output, Failure>())
  }

  fileprivate func output(at index: Int) -> AnyPublisher<Output, Failure> {
    AnyPublisher(Empty<Output, Failure>())
  }

  fileprivate func ignoreOutput() -> AnyPublisher<Never, Failure> {
    AnyPublisher(Empty<Never, Failure>())
  }

  fileprivate func append(_ elements: Output...) -> AnyPublisher<Output, Failure> {
    AnyPublisher(Empty<Output, Failure>())
  }
}

extension Publisher where Output: Equatable {
  fileprivate func contains(_ output: Output) -> AnyPublisher<Bool, Failure> {
    AnyPublisher(Empty<Bool, Failure>())
  }
}

extension Publisher where Output: Comparable {
  fileprivate func min() -> AnyPublisher<Output, Failure> {
    AnyPublisher(Empty<Output, Failure>())
  }
}

extension Publisher where Failure == Never {
  fileprivate func setFailureType<E: Error>(to failureType: E.Type) -> AnyPublisher<Output, E> {
    AnyPublisher(Empty<Output, E>())
  }
}

@Suite struct SpecializedOverloadTests {
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
      type(of: Just(1).setFailureType(to: SpecializedBoom.self))
        == Result<Int, SpecializedBoom>.Publisher.self
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
      type(of: p.setFailureType(to: SpecializedBoom.self))
        == Publishers.Sequence<[Int], SpecializedBoom>.self
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
    let p = Result<Int, SpecializedBoom>.Publisher(1)
    #expect(type(of: p.map { $0 + 1 }) == Result<Int, SpecializedBoom>.Publisher.self)
    #expect(type(of: p.tryMap { $0 + 1 }) == Result<Int, any Error>.Publisher.self)
    #expect(type(of: p.count()) == Result<Int, SpecializedBoom>.Publisher.self)
    #expect(type(of: p.reduce(0, +)) == Result<Int, SpecializedBoom>.Publisher.self)
    #expect(type(of: p.contains(1)) == Result<Bool, SpecializedBoom>.Publisher.self)
    // A failing Result keeps the general ignoreOutput, which passes the failure on.
    #expect(type(of: p.ignoreOutput()) == AnyPublisher<Never, SpecializedBoom>.self)
  }
}
