public import Dispatch
import PropertyWrappers
import StreamCore

/// A closure with no arguments and no result that may be run on another thread: the type of
/// the threading wrappers' values.
///
/// ```swift
/// @BackgroundThreaded var save: SendableAction = { Storage.shared.flush() }
/// ```
///
/// Shuttle's wrappers held an ``Action``; under Swift 6 a closure that another queue runs must
/// be `@Sendable`.
public typealias SendableAction = @Sendable () -> Void

/// A property whose closure always runs asynchronously on the main queue.
///
/// ```swift
/// @MainThreaded var showDone = {
///   MainActor.assumeIsolated { statusLabel.text = "Done" }
/// }
///
/// showDone()  // returns at once; the closure runs on the main queue later
/// ```
///
/// Reading the property returns a new closure that schedules the stored one with
/// `DispatchQueue.main.async`. It always hops, even when called on the main thread, so the
/// closure runs one main-queue turn later. Every call schedules another run: nothing is merged
/// or cancelled. The returned closure runs the closure that was stored when the property was
/// read; setting the property changes what later reads return.
///
/// The closure is `@Sendable` because it runs on another thread. It runs on the main queue, so
/// it may reach main-actor state through `MainActor.assumeIsolated`, as above. On Linux, the
/// main queue runs only while the program services it (`dispatchMain()`, an async `main`, a
/// main-actor task or `RunLoop.main`).
///
/// > Thread safety: The returned closure may be called from any thread. Setting the property is
/// > an ordinary property write and needs the owner's own synchronisation.
@propertyWrapper
public struct MainThreaded: Sendable {
  private var action: SendableAction

  /// Stores the closure to run on the main queue.
  ///
  /// - Parameter wrappedValue: The closure to run.
  public init(wrappedValue: @escaping SendableAction) {
    action = wrappedValue
  }

  /// A closure that schedules the stored closure on the main queue; setting it replaces the
  /// stored closure.
  public var wrappedValue: SendableAction {
    get { hopping(action, to: .main) }
    set { action = newValue }
  }
}

/// A property whose closure always runs asynchronously on the global `.background` queue.
///
/// ```swift
/// @BackgroundThreaded var prune = { Cache.shared.prune() }
/// prune()  // returns at once
/// ```
///
/// Reading the property returns a new closure that schedules the stored one with
/// `DispatchQueue.global(qos: .background).async`, even when called on that queue. Every call
/// schedules another run; runs may overlap, since the global queues are concurrent. The
/// returned closure runs the closure that was stored when the property was read.
///
/// > Thread safety: The returned closure may be called from any thread. Setting the property is
/// > an ordinary property write and needs the owner's own synchronisation.
@propertyWrapper
public struct BackgroundThreaded: Sendable {
  private var action: SendableAction

  /// Stores the closure to run on the `.background` global queue.
  ///
  /// - Parameter wrappedValue: The closure to run.
  public init(wrappedValue: @escaping SendableAction) {
    action = wrappedValue
  }

  /// A closure that schedules the stored closure on the `.background` global queue; setting it
  /// replaces the stored closure.
  public var wrappedValue: SendableAction {
    get { hopping(action, to: .global(qos: .background)) }
    set { action = newValue }
  }
}

/// A property whose closure always runs asynchronously on the global `.userInitiated` queue.
///
/// ```swift
/// @UserInitiatedThreaded var open = { Document.current.load() }
/// open()  // returns at once
/// ```
///
/// Reading the property returns a new closure that schedules the stored one with
/// `DispatchQueue.global(qos: .userInitiated).async`, even when called on that queue. Every
/// call schedules another run; runs may overlap. The returned closure runs the closure that was
/// stored when the property was read.
///
/// > Thread safety: The returned closure may be called from any thread. Setting the property is
/// > an ordinary property write and needs the owner's own synchronisation.
@propertyWrapper
public struct UserInitiatedThreaded: Sendable {
  private var action: SendableAction

  /// Stores the closure to run on the `.userInitiated` global queue.
  ///
  /// - Parameter wrappedValue: The closure to run.
  public init(wrappedValue: @escaping SendableAction) {
    action = wrappedValue
  }

  /// A closure that schedules the stored closure on the `.userInitiated` global queue; setting
  /// it replaces the stored closure.
  public var wrappedValue: SendableAction {
    get { hopping(action, to: .global(qos: .userInitiated)) }
    set { action = newValue }
  }
}

/// A property whose closure always runs asynchronously on the global `.utility` queue.
///
/// ```swift
/// @UtilityThreaded var download = { Downloader.shared.fetchAll() }
/// download()  // returns at once
/// ```
///
/// Reading the property returns a new closure that schedules the stored one with
/// `DispatchQueue.global(qos: .utility).async`, even when called on that queue. Every call
/// schedules another run; runs may overlap. The returned closure runs the closure that was
/// stored when the property was read.
///
/// > Thread safety: The returned closure may be called from any thread. Setting the property is
/// > an ordinary property write and needs the owner's own synchronisation.
@propertyWrapper
public struct UtilityThreaded: Sendable {
  private var action: SendableAction

  /// Stores the closure to run on the `.utility` global queue.
  ///
  /// - Parameter wrappedValue: The closure to run.
  public init(wrappedValue: @escaping SendableAction) {
    action = wrappedValue
  }

  /// A closure that schedules the stored closure on the `.utility` global queue; setting it
  /// replaces the stored closure.
  public var wrappedValue: SendableAction {
    get { hopping(action, to: .global(qos: .utility)) }
    set { action = newValue }
  }
}

/// A property whose closure always runs asynchronously on the global `.default` queue.
///
/// ```swift
/// @DefaultThreaded var index = { SearchIndex.shared.rebuild() }
/// index()  // returns at once
/// ```
///
/// Reading the property returns a new closure that schedules the stored one with
/// `DispatchQueue.global(qos: .default).async`, even when called on that queue. Every call
/// schedules another run; runs may overlap. The returned closure runs the closure that was
/// stored when the property was read.
///
/// > Thread safety: The returned closure may be called from any thread. Setting the property is
/// > an ordinary property write and needs the owner's own synchronisation.
@propertyWrapper
public struct DefaultThreaded: Sendable {
  private var action: SendableAction

  /// Stores the closure to run on the `.default` global queue.
  ///
  /// - Parameter wrappedValue: The closure to run.
  public init(wrappedValue: @escaping SendableAction) {
    action = wrappedValue
  }

  /// A closure that schedules the stored closure on the `.default` global queue; setting it
  /// replaces the stored closure.
  public var wrappedValue: SendableAction {
    get { hopping(action, to: .global(qos: .default)) }
    set { action = newValue }
  }
}

/// A property whose closure runs on a queue a number of milliseconds after each call.
///
/// ```swift
/// @Delayed(500) var hideToast = { MainActor.assumeIsolated { toast.isHidden = true } }
/// @Delayed(250, thread: .global(qos: .background)) var flush = { Log.shared.flush() }
///
/// hideToast()  // runs on the main queue about 500 ms later
/// flush()      // runs on the background queue about 250 ms later
/// ```
///
/// Reading the property returns a new closure that, each time it is called, schedules the
/// stored closure with `thread.asyncAfter(deadline: .now() + .milliseconds(milliseconds))`
/// (through StreamCore's `Scheduler` methods, so a huge delay saturates instead of
/// overflowing: it never runs). It always runs asynchronously, even with a delay of zero or
/// less, which means "as soon as possible". Every call schedules another run: nothing is debounced, merged or cancelled.
/// The returned closure runs the closure that was stored when the property was read. Shuttle's
/// README calls this wrapper `@Delayed2`, which never existed; the name is `@Delayed`.
///
/// > Thread safety: The returned closure may be called from any thread. Setting the property is
/// > an ordinary property write and needs the owner's own synchronisation.
@propertyWrapper
public struct Delayed: Sendable {
  private var action: SendableAction

  /// The delay, in whole milliseconds, between a call and the run.
  public let milliseconds: Int

  /// The queue the closure runs on.
  public let thread: DispatchQueue

  /// Stores the closure to run, the delay and the queue.
  ///
  /// - Parameters:
  ///   - wrappedValue: The closure to run.
  ///   - milliseconds: How long after each call the closure runs, in whole milliseconds.
  ///   - thread: The queue the closure runs on; the main queue by default.
  public init(
    wrappedValue: @escaping SendableAction,
    _ milliseconds: Int,
    thread: DispatchQueue = .main
  ) {
    action = wrappedValue
    self.milliseconds = milliseconds
    self.thread = thread
  }

  /// A closure that schedules the stored closure on ``thread`` after the delay; setting it
  /// replaces the stored closure.
  public var wrappedValue: SendableAction {
    get {
      let action = action
      let thread = thread
      let delay = DispatchQueue.SchedulerTimeType.Stride.milliseconds(milliseconds)
      return { thread.schedule(after: thread.now.advanced(by: delay), action) }
    }
    set { action = newValue }
  }
}

/// Returns a closure that runs `action` asynchronously on `queue` each time it is called.
private func hopping(_ action: @escaping SendableAction, to queue: DispatchQueue) -> SendableAction
{
  { queue.async(execute: action) }
}
