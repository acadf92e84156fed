import Dispatch
import Foundation
import FutureKit
import StreamConbini
import StreamCore
import StreamPropagate
import Testing

/// Constant stack depth: resolving the root of a chain of 100,000 futures.
///
/// Each case runs in an exit test (its own process), on a thread with a fixed 512 KiB stack, so
/// a resolution that nests once per link crashes that process deterministically and fails only
/// its own case.
@Suite(.timeLimit(.minutes(5))) struct FutureChainDepthTests {
  @Test(arguments: FutureChainTable.cases.map(\.name))
  func longChain_resolvesInConstantStack(_ name: String) async {
    await #expect(processExitsWith: .success) { [name] in
      guard let testCase = FutureChainTable.cases.first(where: { $0.name == name }) else {
        preconditionFailure("no case \(name)")
      }
      let done = DispatchSemaphore(value: 0)
      let thread = Thread {
        precondition(testCase.run(), "\(name): wrong result")
        done.signal()
      }
      thread.stackSize = 512 * 1_024
      thread.start()
      precondition(done.wait(timeout: .now() + 120) == .success, "\(name): timed out")
    }
  }
}

struct FutureChainCase: Sendable {
  let name: String
  /// Builds the chain on a pending root, resolves the root, and checks the end's result.
  let run: @Sendable () -> Bool
}

enum FutureChainTable {
  static let length = 100_000

  static let cases: [FutureChainCase] = [
    FutureChainCase(name: "flatMapSuccess") {
      let root = Promise<Int, TestError>()
      var end = root.future
      for _ in 0..<length {
        end = end.flatMapSuccess { Promise(value: $0 + 1).future }
      }
      _ = root.resolve(0)
      return end.resolvedValue == length
    },
    FutureChainCase(name: "flatMapSuccess(pending links)") {
      let root = Promise<Int, TestError>()
      let links = (0..<length).map { _ in Promise<Int, TestError>() }
      var end = root.future
      for link in links {
        end = end.flatMapSuccess { _ in link.future }
      }
      for (index, link) in links.enumerated().reversed() { _ = link.resolve(index) }
      _ = root.resolve(0)
      return end.resolvedValue == length - 1
    },
    FutureChainCase(name: "flatMapError") {
      let root = Promise<Int, TestError>()
      var end = root.future
      for _ in 0..<length {
        end = end.flatMapError { Promise(error: $0).future }
      }
      _ = root.reject(TestError())
      return end.failed
    },
    FutureChainCase(name: "flatMap") {
      let root = Promise<Int, TestError>()
      var end = root.future
      for _ in 0..<length {
        end = end.flatMap { Promise(value: ((try? $0.get()) ?? 0) + 1).future }
      }
      _ = root.resolve(0)
      return end.resolvedValue == length
    },
    FutureChainCase(name: "mapValue") {
      let root = Promise<Int, TestError>()
      var end = root.future
      for _ in 0..<length {
        end = end.mapValue { $0 + 1 }
      }
      _ = root.resolve(0)
      return end.resolvedValue == length
    },
    FutureChainCase(name: "bindTo") {
      let root = Promise<Int, TestError>()
      var promises = [root]
      for _ in 0..<length {
        let next = Promise<Int, TestError>()
        promises.last?.future.bindTo(next)
        promises.append(next)
      }
      _ = root.resolve(7)
      return promises.last?.future.resolvedValue == 7
    },
  ]
}
