import Foundation
import SignalOperators
import StreamCore
import StreamTesting
import Testing

/// Code written for Combine, with only its imports changed: it must compile unchanged (names,
/// argument labels, generic shapes, return types) and behave as it did with Combine.
@Suite(.timeLimit(.minutes(5))) struct CombineSourceCompatibilityTests {
  struct SearchError: Error, Equatable {}

  /// A typical view model: debounce, dedupe, filter, map to a request, switch to the latest,
  /// recover from errors, and deliver on a scheduler.
  final class SearchViewModel {
    let query = CurrentValueSubject<String, Never>("")
    private(set) var results: [String] = []
    private var cancellables = Set<AnyCancellable>()

    init(
      scheduler: VirtualTimeScheduler,
      search: @escaping (String) -> AnyPublisher<[String], SearchError>
    ) {
      query
        .debounce(for: .milliseconds(300), scheduler: scheduler)
        .removeDuplicates()
        .filter { !$0.isEmpty }
        .map { query in search(query).replaceError(with: []) }
        .switchToLatest()
        .receive(on: scheduler)
        .sink { [weak self] in self?.results = $0 }
        .store(in: &cancellables)
    }
  }

  @Test func searchViewModel_debouncesAndSwitches() {
    let scheduler = TestScheduler()
    var searched: [String] = []
    let model = SearchViewModel(scheduler: scheduler) { query in
      searched.append(query)
      if query == "fail" { return Fail(error: SearchError()).eraseToAnyPublisher() }
      return Just([query.uppercased()]).setFailureType(to: SearchError.self).eraseToAnyPublisher()
    }
    model.query.send("s")
    model.query.send("sw")
    model.query.send("swift")
    scheduler.advance(by: .milliseconds(299))
    #expect(searched.isEmpty)
    scheduler.advance(by: .milliseconds(1))
    #expect(searched == ["swift"])
    #expect(model.results == ["SWIFT"])
    model.query.send("fail")
    scheduler.advance(by: .seconds(1))
    #expect(model.results == [])
  }

  @Test func formValidation_combineLatestMapAndErase() {
    let name = CurrentValueSubject<String, Never>("")
    let password = PassthroughSubject<String, Never>()
    let isValid: AnyPublisher<Bool, Never> = Publishers.CombineLatest(name, password)
      .map { name, password in !name.isEmpty && password.count >= 8 }
      .removeDuplicates()
      .eraseToAnyPublisher()
    var states: [Bool] = []
    let cancellable = isValid.sink { states.append($0) }
    password.send("short")
    name.send("ada")
    password.send("long enough")
    #expect(states == [false, true])
    cancellable.cancel()
  }

  @Test func sequenceChain_keepsCombinesTypes() {
    let running: Publishers.Sequence<[Int], Never> = [1, 2, 3, 4, 5].publisher.scan(0, +)
    let firstThree = running.dropFirst().prefix(3).collect()
    var collected: [[Int]] = []
    _ = firstThree.sink { collected.append($0) }
    #expect(collected == [[3, 6, 10]])
    let just: Just<Int> = Just(2).map { $0 * 21 }
    #expect(just.output == 42)
  }

  @Test func zipMergeFlatMapCatchRetry_behaveAsInCombine() {
    let letters = PassthroughSubject<String, SearchError>()
    let numbers = PassthroughSubject<Int, SearchError>()
    var pairs: [String] = []
    var completion: Subscribers.Completion<SearchError>?
    let zipped = Publishers.Zip(letters, numbers)
      .map { "\($0)\($1)" }
      .sink(receiveCompletion: { completion = $0 }, receiveValue: { pairs.append($0) })
    letters.send("a")
    letters.send("b")
    numbers.send(1)
    numbers.send(2)
    numbers.send(completion: .finished)
    #expect(pairs == ["a1", "b2"])
    #expect(completion == .finished)
    zipped.cancel()

    var attempts = 0
    var values: [Int] = []
    _ = Deferred { () -> AnyPublisher<Int, SearchError> in
      attempts += 1
      return attempts < 3
        ? Fail(error: SearchError()).eraseToAnyPublisher()
        : [1, 2].publisher.setFailureType(to: SearchError.self).eraseToAnyPublisher()
    }
    .retry(2)
    .flatMap(maxPublishers: .max(1)) { value in [value, value * 10].publisher }
    .merge(with: Just(0).setFailureType(to: SearchError.self))
    .catch { _ in Just(-1) }
    .sink { values.append($0) }
    #expect(attempts == 3)
    #expect(values == [1, 10, 2, 20, 0])
  }

  @Test func tryMapMapErrorDecode_failLikeCombine() {
    struct Item: Codable, Equatable { let id: Int }
    var items: [Item] = []
    var failure: (any Error)?
    let json = [#"{"id":1}"#, #"{"id":"x"}"#].publisher
      .tryMap { text -> Data in
        guard let data = text.data(using: .utf8) else { throw SearchError() }
        return data
      }
      .decode(type: Item.self, decoder: JSONDecoder())
      .mapError { $0 as NSError }
      .sink(
        receiveCompletion: { if case .failure(let error) = $0 { failure = error } },
        receiveValue: { items.append($0) }
      )
    #expect(items == [Item(id: 1)])
    #expect(failure != nil)
    json.cancel()
  }

  @Test func timeAndSharing_operatorsTakeAnyScheduler() {
    let scheduler = TestScheduler()
    let ticks = PassthroughSubject<Int, SearchError>()
    var groups: [[Int]] = []
    var completion: Subscribers.Completion<SearchError>?
    let shared = ticks.share()
    let grouped =
      shared
      .collect(.byTime(scheduler, .seconds(1)))
      .timeout(.seconds(5), scheduler: scheduler, customError: { SearchError() })
      .sink(receiveCompletion: { completion = $0 }, receiveValue: { groups.append($0) })
    ticks.send(1)
    ticks.send(2)
    scheduler.advance(by: .seconds(1))
    ticks.send(3)
    scheduler.advance(by: .seconds(1))
    #expect(groups == [[1, 2], [3]])
    scheduler.advance(by: .seconds(10))
    #expect(completion == .failure(SearchError()))
    grouped.cancel()
  }

  @Test func values_forAwaitOverAPublisher() async {
    var sum = 0
    for await value in [1, 2, 3].publisher.map({ $0 * 2 }).values {
      sum += value
    }
    #expect(sum == 12)
  }
}
