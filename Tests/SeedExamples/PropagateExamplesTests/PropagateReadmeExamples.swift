// swift-format-ignore-file
// The Swift examples of Propagate's README (seeds/001), compiled against StreamKit.
//
// Each example is the README's code with `import Propagate` replaced by the imports below;
// statements the README shows loose are wrapped in functions, and the names they use but don't
// declare (`userStore`, `getProductID`, …) are declared in "Stand-ins" at the end. Where the
// README's code can't compile by design, a comment says why and which entry of
// Docs/Migration/FromPropagate.md covers it, and the example is left out or given in the
// adapted form that entry describes, marked `Adapted:`.

import Dispatch
import Foundation
import FutureKit
import StreamCore
import Testing
import StreamConbini
import StreamPropagate

// MARK: - Promise and Future

func getUser(userID: String) -> Future<User,RepositoryGetError> {
    let promise = Promise<User,RepositoryGetError>()
    
    userStore.getUser(for: userID) { optionalUser, optionalError in
        if let user = optionalUser {
            promise.resolve(user)
        }
        else if let error = optionalError {
            promise.reject(error)
        }
        else {
            promise.reject(RepositoryGetError.unknownError)
        }
    }
    
    return promise.future
}

extension UserScreen {
  func showUser() {
startActivityIndicator()
userRepository.getUser(for: someUserID)
    .onSuccess { user in
        someObjectThatNeedsAUser.doThingWith(user)
    }
    .onFailure { [weak self] in
        self?.showAlertFor(error: $0)
    }
    .onComplete { [weak self] _ in
        self?.stopActivityIndicator()
    }
  }
}

// MARK: - Publisher and Subscriber

// Left out as written: `Subsciber` is a typo (in Propagate too), and Propagate's `Publisher` and
// `Subscriber` are `StreamPublisher` and `StreamSubscriber` here (FromPropagate.md, rows
// `class Publisher<T, E>` and `class Subscriber<T, E>`). Adapted: with those names,
func subscribeToLoginState() -> StreamSubscriber<Login?, NSError> {
    let publisher = StreamPublisher<Login?, NSError>()

    loginStateListener.listen { (result: Result<Login?, NSError>) in
        switch result {
        case .success(let login):
            publisher.publish(login)
        case .failure(let error):
            publisher.publish(error)
        }
    }
    
    return publisher.subscriber()
}

func consumeLoginState() {
loginManager.subscribeToLoginState()
    .onNewData { login in
        guard login != nil else {  // Adapted: `let login = login`, unused, warns
           navigateToLoginScreen()
           return
        }
        navigateToHomeScreen()
    }
    .onError {
        handleLoginError($0)
    }
    .onCancelled {
        reSubscribeToLoginState()
    }
}

// MARK: - Flat Map

func productChain() -> Future<RelatedData, NSError> {
getProductID
    .flatMapSuccess {
        fetchProduct(id: $0)
    }
    .flatMapSuccess { product in
        fetchRelatedData(for: product)
    }
}

// MARK: - Combine

func combineFutures() -> Future<(Int, String), NSError> {
let myIntFuture = doIntThing() // Future<Int,NSError>
let myStringFuture = doStringThing() // Future<String,NSError>
let combinedFuture = Future.combine(myIntFuture, myStringFuture) // => Future<(Int,String),NSError>
  return combinedFuture  // added: uses the value
}

// Adapted: `Subscriber` is `StreamSubscriber` here (FromPropagate.md, row
// `class Subscriber<T, E>`), and the README declares `combinedSub` twice in one scope, so its
// two forms are two functions.
func combineSubscribers() -> StreamSubscriber<(Int, String), NSError> {
let intSubscriber = getInts() // Subscriber<Int,NSError>
let stringSubscriber = getStrings() // Subscriber<String,NSError>
let combinedSub = StreamSubscriber.combine(intSubscriber, stringSubscriber) // => Subscriber<(Int,String),NSError>
  return combinedSub  // added: uses the value
}

func combineSubscribersWith() -> StreamSubscriber<(Int, String), NSError> {
let intSubscriber = getInts() // Subscriber<Int,NSError>
let stringSubscriber = getStrings() // Subscriber<String,NSError>
// Alternativelly, you can call combine as an instance method on whichever subscriber
// you want to show up first in the tuple:

let combinedSub = intSubscriber.combineWith(stringSubscriber) // => Subscriber<(Int,String),NSError>
  return combinedSub  // added: uses the value
}

// MARK: - Mix and match

// Left out: the README's last example calls `filter` and `map` on subscribers, which Propagate
// names `filterValues` and `mapValues`, and reads a tuple from `merge`, which keeps the element
// type (FromPropagate.md, "Behaviour that differs", row "README drift"). It compiles in neither
// library.

// MARK: - What the README says they do

@Suite(.timeLimit(.minutes(5))) struct PropagateReadmeExamplesTests {
  /// "which in turn lets you write code that consumes this": the success reaches `onSuccess`,
  /// then `onComplete` stops the indicator. Propagate's callbacks run asynchronously, so the
  /// test waits for them (at most 60 s).
  @Test func futureCallbacks_runForTheUsersSuccess() async {
    let screen = UserScreen()
    let stopped = await withCheckedContinuation { continuation in
      screen.onStop = { continuation.resume(returning: $0) }
      screen.showUser()
    }
    #expect(stopped == ["start", "user Ada", "stop"])
  }

  /// "intSubscriber receives 5, combinedSub does nothing … emits (5, "boop") … (5, "BEEP")
  /// … (23, "BEEP")".
  @Test func combinedSubscriber_emitsTheLatestTupleAsTheReadmeSays() async {
    let ints = StreamPublisher<Int, NSError>()
    let strings = StreamPublisher<String, NSError>()
    let intSubscriber = ints.subscriber()
    let stringSubscriber = strings.subscriber()
    let combinedSub = StreamSubscriber.combine(intSubscriber, stringSubscriber)
    let emitted = LockedState<[String]>([])
    combinedSub.onNewData { int, string in
      emitted.withLock { $0.append("(\(int), \(string))") }
    }
    ints.publish(5)
    strings.publish("boop")
    strings.publish("BEEP")
    ints.publish(23)
    // Propagate's callbacks run on the subscriber's own serial queue: wait until it has run
    // what was queued (suspending, not blocking, with the suite's time limit as the bound).
    await withCheckedContinuation { continuation in
      combinedSub.onCancelled { continuation.resume() }
      combinedSub.cancel()
    }
    #expect(emitted.withLock { $0 } == ["(5, boop)", "(5, BEEP)", "(23, BEEP)"])
  }
}

// MARK: - Stand-ins for the names the README uses

struct User: Sendable { let name: String }
enum RepositoryGetError: Error { case unknownError }
struct Login: Sendable {}
struct Product: Sendable {}
struct RelatedData: Sendable {}

/// A callback API that answers at once with a user named Ada.
struct UserStore {
  func getUser(for id: String, completion: (User?, RepositoryGetError?) -> Void) {
    completion(User(name: "Ada"), nil)
  }
}
let userStore = UserStore()

struct UserRepository: Sendable {
  func getUser(for id: String) -> Future<User, RepositoryGetError> {
    PropagateExamplesTests.getUser(userID: id)
  }
}

/// The screen the README's consuming code runs in; it records what it does in `screenLog`.
final class UserScreen: Sendable {
  private let stopHandler = LockedState<(@Sendable ([String]) -> Void)?>(nil)
  let userRepository = UserRepository()
  let someUserID = "42"

  var onStop: (@Sendable ([String]) -> Void)? {
    get { stopHandler.withLock { $0 } }
    set { stopHandler.withLock { $0 = newValue } }
  }

  func startActivityIndicator() { screenLog.withLock { $0.append("start") } }
  func showAlertFor(error: RepositoryGetError) { screenLog.withLock { $0.append("alert") } }
  func stopActivityIndicator() {
    let steps = screenLog.withLock { steps in
      steps.append("stop")
      return steps
    }
    onStop?(steps)
  }
}

/// What the screen and `someObjectThatNeedsAUser` did, in order.
let screenLog = LockedState<[String]>([])

struct UserConsumer: Sendable {
  func doThingWith(_ user: User) { screenLog.withLock { $0.append("user \(user.name)") } }
}
let someObjectThatNeedsAUser = UserConsumer()

/// A listener that never calls back.
struct LoginStateListener {
  func listen(_ callback: @escaping (Result<Login?, NSError>) -> Void) {}
}
let loginStateListener = LoginStateListener()

struct LoginManager {
  func subscribeToLoginState() -> StreamSubscriber<Login?, NSError> {
    PropagateExamplesTests.subscribeToLoginState()
  }
}
let loginManager = LoginManager()
func navigateToLoginScreen() {}
func navigateToHomeScreen() {}
func handleLoginError(_ error: NSError) {}
func reSubscribeToLoginState() {}

let getProductID = Future<Int, NSError>.of(7)
func fetchProduct(id: Int) -> Future<Product, NSError> { .of(Product()) }
func fetchRelatedData(for product: Product) -> Future<RelatedData, NSError> { .of(RelatedData()) }

func doIntThing() -> Future<Int, NSError> { .of(1) }
func doStringThing() -> Future<String, NSError> { .of("one") }
func getInts() -> StreamSubscriber<Int, NSError> { StreamSubscriber.of(1) }
func getStrings() -> StreamSubscriber<String, NSError> { StreamSubscriber.of("one") }
