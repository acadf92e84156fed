// More operators and forms, written once and compiled twice like Scenarios.swift
// (Sources/OpenCombineScenarios/FormScenarios.swift is a symlink to this file): the forms the
// first scenarios left out (issue 42), and the specialised overloads on `Just`, `Optional`,
// `Result` and `Sequence` publishers, whose results are publishers of their own.
//
// The specialised forms have no scripted upstream: only the downstream's steps (requests,
// cancels, demand returned) drive them.

import DiffModel

#if OPENCOMBINE
import OpenCombine
#else
import SignalOperators
import StreamCore
#endif

enum FormScenarios {
  /// The forms over scripted upstreams.
  static let forms: [OperatorShape] = [
    .init("zip4", upstreams: 4, misbehavingSetup: [[], [], [], []]),
    .init("max(by:)"), .init("tryMin(by:)"), .init("breakpointOnError"),
    .init("multicast(closure)", multiDownstream: true, connectable: true),
    .init("retry(0)"), .init("retry(2)", extraUpstreams: 2),
    .init("buffer.keepFull.dropOldest"), .init("buffer.byRequest.customError"),
    .init("Empty(completeImmediately:false)", upstreams: 0),
    .init("Optional.Publisher(nil)", upstreams: 0),
    .init("Result.Publisher(failure)", upstreams: 0),
  ]

  /// The specialised overloads, by the publisher they start from.
  static let specialised: [String] =
    [
      "map", "tryMap", "filter", "tryFilter", "compactMap", "min", "max", "tryMin(by:)",
      "count", "removeDuplicates", "tryRemoveDuplicates", "reduce", "tryScan", "contains",
      "allSatisfy", "tryAllSatisfy", "collect", "first", "last", "output(at:1)", "prefix(0)",
      "dropFirst", "ignoreOutput", "replaceEmpty", "replaceError", "retry(1)",
    ].flatMap { ["Just.\($0)", "Optional.\($0)", "Result.\($0)", "Sequence.\($0)"] }

  static let operators: [OperatorShape] =
    forms + specialised.map { .init($0, upstreams: 0, misbehaviour: false, maxScripts: 50) }

  // swiftlint:disable:next cyclomatic_complexity function_body_length
  static func build(_ op: String, _ w: World) -> Bool {
    let up = w.ints()
    switch op {
    case "zip4": w.subscribe(up.zip(w.ints(), w.ints(), w.ints()))
    case "max(by:)":
      let t = w.makeToken()
      w.subscribe(
        up.max {
          t.touch()
          return $0 > $1
        }
      )
    case "tryMin(by:)":
      let t = w.makeToken()
      w.subscribe(
        up.tryMin { a, b in
          t.touch()
          if b == 4 { throw TestError(code: 9) }
          return a < b
        }
      )
    case "breakpointOnError": w.subscribe(up.breakpointOnError())
    case "multicast(closure)":
      let t = w.makeToken()
      let p = up.multicast {
        t.touch()
        return PassthroughSubject<Int, TestError>()
      }
      w.subscribeMany(p)
      w.connect = { p.connect() }
    case "retry(0)": w.subscribe(up.retry(0))
    case "retry(2)": w.subscribe(up.retry(2))
    case "buffer.keepFull.dropOldest":
      w.subscribe(up.buffer(size: 2, prefetch: .keepFull, whenFull: .dropOldest))
    case "buffer.byRequest.customError":
      w.subscribe(
        up.buffer(size: 2, prefetch: .byRequest, whenFull: .customError { TestError(code: 7) })
      )
    case "Empty(completeImmediately:false)":
      w.subscribe(Empty<Int, TestError>(completeImmediately: false))
    case "Optional.Publisher(nil)": w.subscribe(Optional<Int>.Publisher(nil))
    case "Result.Publisher(failure)":
      w.subscribe(Result<Int, TestError>.Publisher(.failure(TestError(code: 1))))
    default:
      guard let dot = op.firstIndex(of: "."), specialised.contains(op) else { return false }
      let form = String(op[op.index(after: dot)...])
      switch op[..<dot] {
      case "Just": just(Just(3), form, w)
      case "Optional": optional(Optional<Int>.Publisher(3), form, w)
      case "Result": result(Result<Int, TestError>.Publisher(.success(3)), form, w)
      default: sequence([3, 1, 3, 2].publisher, form, w)
      }
    }
    return true
  }

  // The four copies below differ only in the type of `p`, which chooses the overloads: each
  // of these publishers has its own for most forms, and only a concrete type reaches them (in a
  // generic function `Publisher`'s would be chosen).

  // swiftlint:disable:next cyclomatic_complexity
  static func just(_ p: Just<Int>, _ form: String, _ w: World) {
    let c = Closures(w)
    switch form {
    case "map": w.subscribe(p.map(c.mapping))
    case "tryMap": w.subscribe(p.tryMap(c.tryMapping))
    case "filter": w.subscribe(p.filter(c.predicate))
    case "tryFilter": w.subscribe(p.tryFilter(c.tryPredicate))
    case "compactMap": w.subscribe(p.compactMap(c.optional))
    case "min": w.subscribe(p.min())
    case "max": w.subscribe(p.max())
    case "tryMin(by:)": w.subscribe(p.tryMin(by: c.tryOrder))
    case "count": w.subscribe(p.count())
    case "removeDuplicates": w.subscribe(p.removeDuplicates())
    case "tryRemoveDuplicates": w.subscribe(p.tryRemoveDuplicates(by: c.tryOrder))
    case "reduce": w.subscribe(p.reduce(0, c.sum))
    case "tryScan": w.subscribe(p.tryScan(0, c.trySum))
    case "contains": w.subscribe(p.contains(1))
    case "allSatisfy": w.subscribe(p.allSatisfy(c.predicate))
    case "tryAllSatisfy": w.subscribe(p.tryAllSatisfy(c.tryPredicate))
    case "collect": w.subscribe(p.collect())
    case "first": w.subscribe(p.first())
    case "last": w.subscribe(p.last())
    case "output(at:1)": w.subscribe(p.output(at: 1))
    case "prefix(0)": w.subscribe(p.prefix(0))
    case "dropFirst": w.subscribe(p.dropFirst())
    case "ignoreOutput": w.subscribe(p.ignoreOutput())
    case "replaceEmpty": w.subscribe(p.replaceEmpty(with: 42))
    case "replaceError": w.subscribe(p.replaceError(with: 42))
    case "retry(1)": w.subscribe(p.retry(1))
    default: preconditionFailure("no form \(form)")
    }
  }

  // swiftlint:disable:next cyclomatic_complexity
  static func optional(_ p: Optional<Int>.Publisher, _ form: String, _ w: World) {
    let c = Closures(w)
    switch form {
    case "map": w.subscribe(p.map(c.mapping))
    case "tryMap": w.subscribe(p.tryMap(c.tryMapping))
    case "filter": w.subscribe(p.filter(c.predicate))
    case "tryFilter": w.subscribe(p.tryFilter(c.tryPredicate))
    case "compactMap": w.subscribe(p.compactMap(c.optional))
    case "min": w.subscribe(p.min())
    case "max": w.subscribe(p.max())
    case "tryMin(by:)": w.subscribe(p.tryMin(by: c.tryOrder))
    case "count": w.subscribe(p.count())
    case "removeDuplicates": w.subscribe(p.removeDuplicates())
    case "tryRemoveDuplicates": w.subscribe(p.tryRemoveDuplicates(by: c.tryOrder))
    case "reduce": w.subscribe(p.reduce(0, c.sum))
    case "tryScan": w.subscribe(p.tryScan(0, c.trySum))
    case "contains": w.subscribe(p.contains(1))
    case "allSatisfy": w.subscribe(p.allSatisfy(c.predicate))
    case "tryAllSatisfy": w.subscribe(p.tryAllSatisfy(c.tryPredicate))
    case "collect": w.subscribe(p.collect())
    case "first": w.subscribe(p.first())
    case "last": w.subscribe(p.last())
    case "output(at:1)": w.subscribe(p.output(at: 1))
    case "prefix(0)": w.subscribe(p.prefix(0))
    case "dropFirst": w.subscribe(p.dropFirst())
    case "ignoreOutput": w.subscribe(p.ignoreOutput())
    case "replaceEmpty": w.subscribe(p.replaceEmpty(with: 42))
    case "replaceError": w.subscribe(p.replaceError(with: 42))
    case "retry(1)": w.subscribe(p.retry(1))
    default: preconditionFailure("no form \(form)")
    }
  }

  // swiftlint:disable:next cyclomatic_complexity
  static func result(_ p: Result<Int, TestError>.Publisher, _ form: String, _ w: World) {
    let c = Closures(w)
    switch form {
    case "map": w.subscribe(p.map(c.mapping))
    case "tryMap": w.subscribe(p.tryMap(c.tryMapping))
    case "filter": w.subscribe(p.filter(c.predicate))
    case "tryFilter": w.subscribe(p.tryFilter(c.tryPredicate))
    case "compactMap": w.subscribe(p.compactMap(c.optional))
    case "min": w.subscribe(p.min())
    case "max": w.subscribe(p.max())
    case "tryMin(by:)": w.subscribe(p.tryMin(by: c.tryOrder))
    case "count": w.subscribe(p.count())
    case "removeDuplicates": w.subscribe(p.removeDuplicates())
    case "tryRemoveDuplicates": w.subscribe(p.tryRemoveDuplicates(by: c.tryOrder))
    case "reduce": w.subscribe(p.reduce(0, c.sum))
    case "tryScan": w.subscribe(p.tryScan(0, c.trySum))
    case "contains": w.subscribe(p.contains(1))
    case "allSatisfy": w.subscribe(p.allSatisfy(c.predicate))
    case "tryAllSatisfy": w.subscribe(p.tryAllSatisfy(c.tryPredicate))
    case "collect": w.subscribe(p.collect())
    case "first": w.subscribe(p.first())
    case "last": w.subscribe(p.last())
    case "output(at:1)": w.subscribe(p.output(at: 1))
    case "prefix(0)": w.subscribe(p.prefix(0))
    case "dropFirst": w.subscribe(p.dropFirst())
    case "ignoreOutput": w.subscribe(p.ignoreOutput())
    case "replaceEmpty": w.subscribe(p.replaceEmpty(with: 42))
    case "replaceError": w.subscribe(p.replaceError(with: 42))
    case "retry(1)": w.subscribe(p.retry(1))
    default: preconditionFailure("no form \(form)")
    }
  }

  // swiftlint:disable:next cyclomatic_complexity
  static func sequence(_ p: Publishers.Sequence<[Int], Never>, _ form: String, _ w: World) {
    let c = Closures(w)
    switch form {
    case "map": w.subscribe(p.map(c.mapping))
    case "tryMap": w.subscribe(p.tryMap(c.tryMapping))
    case "filter": w.subscribe(p.filter(c.predicate))
    case "tryFilter": w.subscribe(p.tryFilter(c.tryPredicate))
    case "compactMap": w.subscribe(p.compactMap(c.optional))
    case "min": w.subscribe(p.min())
    case "max": w.subscribe(p.max())
    case "tryMin(by:)": w.subscribe(p.tryMin(by: c.tryOrder))
    case "count": w.subscribe(p.count())
    case "removeDuplicates": w.subscribe(p.removeDuplicates())
    case "tryRemoveDuplicates": w.subscribe(p.tryRemoveDuplicates(by: c.tryOrder))
    case "reduce": w.subscribe(p.reduce(0, c.sum))
    case "tryScan": w.subscribe(p.tryScan(0, c.trySum))
    case "contains": w.subscribe(p.contains(1))
    case "allSatisfy": w.subscribe(p.allSatisfy(c.predicate))
    case "tryAllSatisfy": w.subscribe(p.tryAllSatisfy(c.tryPredicate))
    case "collect": w.subscribe(p.collect())
    case "first": w.subscribe(p.first())
    case "last": w.subscribe(p.last())
    case "output(at:1)": w.subscribe(p.output(at: 1))
    case "prefix(0)": w.subscribe(p.prefix(0))
    case "dropFirst": w.subscribe(p.dropFirst())
    case "ignoreOutput": w.subscribe(p.ignoreOutput())
    case "replaceEmpty": w.subscribe(p.replaceEmpty(with: 42))
    case "replaceError": w.subscribe(p.replaceError(with: 42))
    case "retry(1)": w.subscribe(p.retry(1))
    default: preconditionFailure("no form \(form)")
    }
  }
}

/// The closures of the specialised forms; each captures the scenario's token, so the life cycle
/// shows when the operator lets go of it. The throwing ones throw at the value 1, which each
/// specialised publisher sends (`Just(3)` never does: only a comparison with 1 could throw).
struct Closures {
  let token: Token
  init(_ w: World) { token = w.makeToken() }

  var mapping: (Int) -> Int {
    { [token] in
      token.touch()
      return $0 * 10
    }
  }
  var tryMapping: (Int) throws -> Int {
    { [token] in
      token.touch()
      if $0 == 1 { throw TestError(code: 9) }
      return $0 * 10
    }
  }
  var predicate: (Int) -> Bool {
    { [token] in
      token.touch()
      return $0 != 1
    }
  }
  var tryPredicate: (Int) throws -> Bool {
    { [token] in
      token.touch()
      if $0 == 1 { throw TestError(code: 9) }
      return $0 != 2
    }
  }
  var optional: (Int) -> Int? {
    { [token] in
      token.touch()
      return $0 == 1 ? nil : $0
    }
  }
  var tryOrder: (Int, Int) throws -> Bool {
    { [token] a, b in
      token.touch()
      if a == 1 || b == 1 { throw TestError(code: 9) }
      return a < b
    }
  }
  var sum: (Int, Int) -> Int {
    { [token] in
      token.touch()
      return $0 + $1
    }
  }
  var trySum: (Int, Int) throws -> Int {
    { [token] in
      token.touch()
      if $1 == 1 { throw TestError(code: 9) }
      return $0 + $1
    }
  }
}
