public import Foundation
public import StreamCore

#if canImport(FoundationNetworking)
public import FoundationNetworking
#endif

// On Apple platforms Foundation declares these names itself, for Apple's Combine; declaring
// them again would make every use ambiguous, so StreamFoundation provides them elsewhere only.
#if !canImport(Darwin)

extension URLSession {
  /// A publisher that loads `url` with a data task of this session.
  ///
  /// ```swift
  /// let cancellable = URLSession.shared.dataTaskPublisher(for: url)
  ///   .map(\.data)
  ///   .sink(receiveCompletion: { print($0) }, receiveValue: { print($0.count, "bytes") })
  /// ```
  ///
  /// > Thread safety: May be called from any thread.
  ///
  /// - Parameter url: The URL to load.
  /// - Returns: A publisher of the data and response, or the `URLError` the load failed with.
  public func dataTaskPublisher(for url: URL) -> DataTaskPublisher {
    DataTaskPublisher(request: URLRequest(url: url), session: self)
  }

  /// A publisher that loads `request` with a data task of this session.
  ///
  /// ```swift
  /// var request = URLRequest(url: url)
  /// request.httpMethod = "HEAD"
  /// let cancellable = URLSession.shared.dataTaskPublisher(for: request)
  ///   .sink(receiveCompletion: { print($0) }, receiveValue: { print($0.response) })
  /// ```
  ///
  /// > Thread safety: May be called from any thread.
  ///
  /// - Parameter request: The request to load.
  /// - Returns: A publisher of the data and response, or the `URLError` the load failed with.
  public func dataTaskPublisher(for request: URLRequest) -> DataTaskPublisher {
    DataTaskPublisher(request: request, session: self)
  }

  /// A publisher that runs a data task and sends its data and response, then finishes; or fails
  /// with the task's `URLError`.
  ///
  /// ```swift
  /// let publisher = URLSession.DataTaskPublisher(request: URLRequest(url: url), session: .shared)
  /// ```
  ///
  /// - Each subscriber gets a task of its own, created and resumed on its first request, so
  ///   nothing is loaded before there is demand for the one value.
  /// - A response with an HTTP error status (404, 500) is a value, not a failure: check the
  ///   `HTTPURLResponse`'s `statusCode`. Failures are the transport's: no connection, a timeout,
  ///   a bad URL. An error that is not a `URLError`, and a task that ends with neither an
  ///   error nor a response, arrive as `URLError(.unknown)`, as in Combine.
  /// - Cancelling the subscription cancels the task; nothing is sent after it.
  /// - The value and completion arrive on the session's delegate queue.
  ///
  /// > Thread safety: `Sendable`; subscribe from any thread, and request and cancel from any
  /// > thread.
  public struct DataTaskPublisher: Publisher, Sendable {
    /// The data and the response.
    public typealias Output = (data: Data, response: URLResponse)
    /// The transport error the load failed with.
    public typealias Failure = URLError

    /// The request each subscriber's task loads.
    public let request: URLRequest
    /// The session the tasks run in.
    public let session: URLSession

    /// Creates a publisher that loads `request` in `session`.
    ///
    /// > Thread safety: May be called from any thread.
    ///
    /// - Parameters:
    ///   - request: The request to load.
    ///   - session: The session to run the tasks in.
    public init(request: URLRequest, session: URLSession) {
      self.request = request
      self.session = session
    }

    /// Attaches `subscriber`; its task starts on its first request.
    ///
    /// > Thread safety: May be called from any thread.
    ///
    /// - Parameter subscriber: The subscriber to attach.
    public func receive<S: Subscriber>(subscriber: S)
    where S.Input == Output, S.Failure == URLError {
      let subscription = DataTaskSubscription(parent: self, downstream: subscriber)
      subscriber.receive(subscription: subscription)
    }
  }
}

/// One subscriber's data task: created on the first request, cancelled with the subscription.
// Sendable: `state` is only touched under `lock`; the downstream is called outside it, once for
// the value and once for the completion, never at the same time.
private final class DataTaskSubscription<Downstream: Subscriber>: Subscription,
  CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible,
  @unchecked Sendable
where Downstream.Input == URLSession.DataTaskPublisher.Output, Downstream.Failure == URLError {
  private enum State {
    /// Subscribed; no request yet.
    case waiting(URLRequest, URLSession, Downstream)
    /// The first request is creating the task.
    case starting(Downstream)
    /// The task runs.
    case running(URLSessionDataTask, Downstream)
    /// The task ended with a response; the value is being sent.
    case sending(Downstream)
    /// Completed or cancelled.
    case done
  }

  private let lock = Lock()
  private var state: State
  /// The publisher, for the mirror; `nil` once done.
  private var parent: URLSession.DataTaskPublisher?
  /// Requested and not yet met, for the mirror; none once done.
  private var demand = Subscribers.Demand.none

  init(parent: URLSession.DataTaskPublisher, downstream: Downstream) {
    self.parent = parent
    state = .waiting(parent.request, parent.session, downstream)
  }

  var description: String { "DataTaskPublisher" }

  /// As Combine's: the `task` (`nil` until the first request and once done), the `downstream`,
  /// the `parent` publisher and the `demand` not yet met; once done, all but the demand read
  /// `nil`.
  var customMirror: Mirror {
    let (task, downstream, parent, demand) = lock.withLock {
      () -> (URLSessionDataTask?, Downstream?, URLSession.DataTaskPublisher?, Subscribers.Demand) in
      switch state {
      case .waiting(_, _, let downstream), .starting(let downstream), .sending(let downstream):
        (nil, downstream, self.parent, self.demand)
      case .running(let task, let downstream): (task, downstream, self.parent, self.demand)
      case .done: (nil, nil, nil, .none)
      }
    }
    return Mirror(
      self,
      children: [
        "task": task as Any, "downstream": downstream as Any, "parent": parent as Any,
        "demand": demand,
      ]
    )
  }

  var playgroundDescription: Any { description }

  func request(_ demand: Subscribers.Demand) {
    precondition(demand > .none, "DataTaskPublisher: request(_:) needs a demand above zero")
    let start = lock.withLock { () -> Start? in
      if case .done = state { return nil }
      self.demand += demand
      if case .running(let task, _) = state { return .resume(task) }
      guard case .waiting(let request, let session, let downstream) = state else { return nil }
      state = .starting(downstream)
      return .make(request, session)
    }
    let request: URLRequest
    let session: URLSession
    switch start {
    case .make(let madeRequest, let madeSession)?:
      (request, session) = (madeRequest, madeSession)
    case .resume(let task)?:
      // As Combine's: each request while the task runs resumes it again (OpenCombine's
      // `URLSessionTests.testRequesting`); resuming a running task does nothing.
      task.resume()
      return
    case nil:
      return
    }
    // The handler keeps the subscription alive until the task ends, as the task keeps the
    // handler; ending the task releases both.
    let task = session.dataTask(with: request) { data, response, error in
      self.finish(data: data, response: response, error: error)
    }
    let started = lock.withLock { () -> Bool in
      guard case .starting(let downstream) = state else { return false }
      state = .running(task, downstream)
      return true
    }
    if started {
      task.resume()
    } else {
      // Cancelled while the task was being made: the session may already track it.
      task.cancel()
    }
  }

  /// What a request does after the lock.
  private enum Start {
    /// Makes the task and resumes it.
    case make(URLRequest, URLSession)
    /// Resumes the running task again.
    case resume(URLSessionDataTask)
  }

  func cancel() {
    // The old state (and the downstream in it) is released after the lock.
    let old = lock.withLock { () -> (State, URLSession.DataTaskPublisher?) in
      let old = state
      state = .done
      demand = .none
      return (old, parent.take())
    }
    if case .running(let task, _) = old.0 {
      task.cancel()
    }
  }

  private func finish(data: Data?, response: URLResponse?, error: (any Error)?) {
    let sendsValue = error == nil && response != nil
    let (downstream, released) = lock.withLock {
      () -> (Downstream?, URLSession.DataTaskPublisher?) in
      guard case .running(_, let downstream) = state else { return (nil, nil) }
      if sendsValue {
        state = .sending(downstream)
        if demand > .none { demand -= 1 }
        return (downstream, nil)
      }
      state = .done
      demand = .none
      return (downstream, self.parent.take())
    }
    _ = released  // the parent, released after the lock
    guard let downstream else { return }
    guard let response, error == nil else {
      let failure =
        error.map { $0 as? URLError ?? URLError(.unknown) } ?? URLError(.unknown)
      downstream.receive(completion: .failure(failure))
      return
    }
    _ = downstream.receive((data: data ?? Data(), response: response))
    // A cancel from inside `receive(_:)` leaves nothing more to send.
    let (finishes, ended) = lock.withLock { () -> (Bool, URLSession.DataTaskPublisher?) in
      guard case .sending = state else { return (false, nil) }
      state = .done
      demand = .none
      return (true, self.parent.take())
    }
    _ = ended  // the parent, released after the lock
    if finishes {
      downstream.receive(completion: .finished)
    }
  }
}

#endif
