import Foundation
import SignalOperators
import StreamCore
import StreamFoundation
import StreamTesting
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// On Apple platforms Foundation declares these names itself, for Apple's Combine; declaring
// them again would make every use ambiguous, so StreamFoundation provides them elsewhere only.
#if !canImport(Darwin)

/// `URLSession.dataTaskPublisher` against a real HTTP server on 127.0.0.1 (`LocalHTTPServer`).
@Suite(.timeLimit(.minutes(5)))
struct DataTaskPublisherTests {
  /// What a sink saw: `value <status> <body>`, `finished` or `failure <code>`.
  private static func load(
    _ publisher: URLSession.DataTaskPublisher,
    into events: Collected<String>
  ) -> AnyCancellable {
    publisher.sink(
      receiveCompletion: { completion in
        switch completion {
        case .finished: events.append("finished")
        case .failure(let error): events.append("failure \(error.code.rawValue)")
        }
      },
      receiveValue: { data, response in
        let status = (response as? HTTPURLResponse)?.statusCode ?? -1
        events.append("value \(status) \(String(decoding: data, as: UTF8.self))")
      }
    )
  }

  private static let session: URLSession = {
    let configuration = URLSessionConfiguration.ephemeral
    configuration.connectionProxyDictionary = [:]
    // Longer than any test may run, so a loaded machine never turns a load into a timeout.
    configuration.timeoutIntervalForRequest = 600
    return URLSession(configuration: configuration)
  }()

  // Issue 15: as Combine's, the subscription is a `DataTaskPublisher` whose mirror shows the
  // task (none before the first request), the downstream, the parent publisher and the demand.
  @Test func subscription_describesItself_andMirrorsTaskDownstreamParentAndDemand() throws {
    let url = try #require(URL(string: "http://127.0.0.1:9/mirror"))
    let publisher = Self.session.dataTaskPublisher(for: url)
    let recorder = RecordingSubscriber<URLSession.DataTaskPublisher.Output, URLError>(
      initialDemand: nil
    )
    publisher.subscribe(recorder)
    let subscription = try #require(recorder.subscription)
    #expect(String(describing: subscription) == "DataTaskPublisher")
    let playground = subscription as? any CustomPlaygroundDisplayConvertible
    #expect(playground?.playgroundDescription as? String == "DataTaskPublisher")
    let children = { Mirror(reflecting: subscription).children }
    #expect(children().map(\.label) == ["task", "downstream", "parent", "demand"])
    let values = Array(children()).map(\.value)
    #expect(String(describing: values[0]) == "nil")
    #expect(
      values[1] as? RecordingSubscriber<URLSession.DataTaskPublisher.Output, URLError>
        === recorder
    )
    #expect((values[2] as? URLSession.DataTaskPublisher)?.request.url == url)
    #expect(values[3] as? Subscribers.Demand == Subscribers.Demand.none)
    subscription.cancel()
    #expect(children().map { String(describing: $0.value) } == ["nil", "nil", "nil", "max(0)"])
  }

  @Test func success_sendsTheDataAndResponse_thenFinishes() async throws {
    let server = try LocalHTTPServer()
    defer { server.stop() }
    let events = Collected<String>()
    let cancellable = Self.load(
      Self.session.dataTaskPublisher(for: server.url("/ok")),
      into: events
    )
    #expect(await events.wait(for: 2))
    #expect(events.items == ["value 200 hello", "finished"])
    #expect(server.log.items == ["GET /ok"])
    cancellable.cancel()
  }

  @Test func aURLRequest_isLoadedAsGiven() async throws {
    let server = try LocalHTTPServer()
    defer { server.stop() }
    var request = URLRequest(url: server.url("/ok"))
    request.setValue("StreamKit", forHTTPHeaderField: "User-Agent")
    let publisher = Self.session.dataTaskPublisher(for: request)
    #expect(publisher.request.url == server.url("/ok"))
    #expect(publisher.session === Self.session)
    let events = Collected<String>()
    let cancellable = Self.load(publisher, into: events)
    #expect(await events.wait(for: 2))
    #expect(events.items == ["value 200 hello", "finished"])
    cancellable.cancel()
  }

  @Test func anHTTPErrorStatus_isAValueNotAFailure() async throws {
    let server = try LocalHTTPServer()
    defer { server.stop() }
    let events = Collected<String>()
    let cancellable = Self.load(
      Self.session.dataTaskPublisher(for: server.url("/missing")),
      into: events
    )
    #expect(await events.wait(for: 2))
    #expect(events.items == ["value 404 not found", "finished"])
    cancellable.cancel()
  }

  @Test func aRefusedConnection_failsWithCannotConnectToHost() async {
    let refusing = LocalHTTPServer.refusingPort()
    defer { close(refusing.descriptor) }
    let url = URL(string: "http://127.0.0.1:\(refusing.port)/ok")!
    let events = Collected<String>()
    let cancellable = Self.load(Self.session.dataTaskPublisher(for: url), into: events)
    #expect(await events.wait(for: 1))
    #expect(events.items == ["failure \(URLError.Code.cannotConnectToHost.rawValue)"])
    cancellable.cancel()
  }

  @Test func cancelBeforeTheResponse_cancelsTheTask_andSendsNothing() async throws {
    let server = try LocalHTTPServer()
    defer { server.stop() }
    let events = Collected<String>()
    let cancellable = Self.load(
      Self.session.dataTaskPublisher(for: server.url("/hang")),
      into: events
    )
    #expect(await server.log.wait(for: 1))
    cancellable.cancel()
    // The cancelled task closes its connection; the server sees it.
    #expect(await server.log.wait(for: 2))
    #expect(server.log.items == ["GET /hang", "closed /hang"])
    // A later load on the same session completes, and the cancelled one still has sent nothing.
    let later = Collected<String>()
    let second = Self.load(Self.session.dataTaskPublisher(for: server.url("/ok")), into: later)
    #expect(await later.wait(for: 2))
    #expect(events.items.isEmpty)
    second.cancel()
  }

  @Test func nothingIsLoaded_untilTheSubscriberRequests() async throws {
    let server = try LocalHTTPServer()
    defer { server.stop() }
    let subscriber = ManualSubscriber()
    Self.session.dataTaskPublisher(for: server.url("/missing")).subscribe(subscriber)
    // Another load goes through first: the unrequested one never reached the server.
    let events = Collected<String>()
    let cancellable = Self.load(
      Self.session.dataTaskPublisher(for: server.url("/ok")),
      into: events
    )
    #expect(await events.wait(for: 2))
    #expect(server.log.items == ["GET /ok"])
    subscriber.subscription?.request(.max(1))
    #expect(await subscriber.events.wait(for: 2))
    #expect(subscriber.events.items == ["value 404", "finished"])
    #expect(server.log.items == ["GET /ok", "GET /missing"])
    cancellable.cancel()
  }

  @Test func cancelFromInsideReceive_sendsNoCompletion() async throws {
    let server = try LocalHTTPServer()
    defer { server.stop() }
    let subscriber = ManualSubscriber(cancelsOnValue: true)
    Self.session.dataTaskPublisher(for: server.url("/ok")).subscribe(subscriber)
    subscriber.subscription?.request(.max(1))
    #expect(await subscriber.events.wait(for: 1))
    // A later load completes; by then a wrongly sent completion would have arrived.
    let later = Collected<String>()
    let cancellable = Self.load(Self.session.dataTaskPublisher(for: server.url("/ok")), into: later)
    #expect(await later.wait(for: 2))
    #expect(subscriber.events.items == ["value 200"])
    cancellable.cancel()
  }

  /// As Combine's (OpenCombine's `URLSessionTests.testRequesting`): each request while the
  /// task runs resumes it again; a request after the cancel does nothing.
  @Test func eachRequestWhileTheTaskRuns_resumesItAgain() throws {
    let session = CountingSession(configuration: .ephemeral)
    let recorder = RecordingSubscriber<URLSession.DataTaskPublisher.Output, URLError>(
      initialDemand: nil
    )
    session.dataTaskPublisher(for: URL(string: "http://127.0.0.1:1/")!).subscribe(recorder)
    #expect(session.task.events.withLock { $0 }.isEmpty)
    recorder.request(.max(2))
    recorder.request(.max(1))
    #expect(session.task.events.withLock { $0 } == ["resume", "resume"])
    try #require(recorder.subscription).cancel()
    #expect(session.task.events.withLock { $0 } == ["resume", "resume", "cancel"])
    #expect(recorder.events.count == 1)  // the subscription only
  }

  @Test func eachSubscriber_getsATaskOfItsOwn() async throws {
    let server = try LocalHTTPServer()
    defer { server.stop() }
    let publisher = Self.session.dataTaskPublisher(for: server.url("/ok"))
    let first = Collected<String>()
    let second = Collected<String>()
    let a = Self.load(publisher, into: first)
    let b = Self.load(publisher, into: second)
    #expect(await first.wait(for: 2))
    #expect(await second.wait(for: 2))
    #expect(first.items == ["value 200 hello", "finished"])
    #expect(second.items == ["value 200 hello", "finished"])
    #expect(server.log.items == ["GET /ok", "GET /ok"])
    a.cancel()
    b.cancel()
  }
}

/// Subscribes without requesting; the test requests through ``subscription``.
private final class ManualSubscriber: Subscriber, @unchecked Sendable {
  typealias Input = URLSession.DataTaskPublisher.Output
  typealias Failure = URLError
  let events = Collected<String>()
  private let cancelsOnValue: Bool
  private let lock = NSLock()
  private var stored: (any Subscription)?

  init(cancelsOnValue: Bool = false) {
    self.cancelsOnValue = cancelsOnValue
  }

  var subscription: (any Subscription)? {
    lock.lock()
    defer { lock.unlock() }
    return stored
  }

  func receive(subscription: any Subscription) {
    lock.lock()
    stored = subscription
    lock.unlock()
  }

  func receive(_ input: Input) -> Subscribers.Demand {
    events.append("value \((input.response as? HTTPURLResponse)?.statusCode ?? -1)")
    if cancelsOnValue {
      subscription?.cancel()
    }
    return .none
  }

  func receive(completion: Subscribers.Completion<URLError>) {
    if case .finished = completion {
      events.append("finished")
    } else {
      events.append("failure")
    }
  }
}

/// A session whose one data task only records `resume` and `cancel`; it never loads.
private final class CountingSession: URLSession, @unchecked Sendable {
  // Unchecked: the test uses it from one thread.
  let task = CountingTask()

  override func dataTask(
    with request: URLRequest,
    completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
  ) -> URLSessionDataTask {
    task
  }
}

private final class CountingTask: URLSessionDataTask, @unchecked Sendable {
  // Unchecked: `events` is locked.
  let events = LockedState<[String]>([])

  override func resume() { events.withLock { $0.append("resume") } }

  override func cancel() { events.withLock { $0.append("cancel") } }
}

#endif
