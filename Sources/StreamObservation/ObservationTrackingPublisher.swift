import Observation
public import StreamCore

/// A publisher of what a closure reads from `@Observable` models: the value now, then the value
/// after each change to anything the closure read.
///
/// ```swift
/// let total = ObservationTrackingPublisher(scheduler: DispatchQueue.main) {
///   cart.subtotal + cart.shipping
/// }
/// let cancellable = total.sink { label.text = "\($0)" }
/// ```
///
/// It is the publisher form of Observation's `Observations { … }`. Each read runs inside
/// `withObservationTracking`, so the properties the closure touches this time are the ones
/// watched until the next change; a closure that reads other properties on another turn is
/// tracked on what it read last. ``StreamObservation/Observation/Observable/publisher(for:scheduler:options:)``
/// is the same publisher for one property of one model.
///
/// - The first value is read on `scheduler` once the subscriber first asks for a value.
/// - Observation reports a change before the new value is stored, so the publisher never reads
///   there: it schedules a read on `scheduler`, which sees the value after the change. Changes
///   made in one go before that read (a burst on one thread, or a change made from inside the
///   subscriber) give one value, the last; the last value is never lost.
/// - Changes while the subscriber has no demand are not queued: the publisher remembers only
///   that something changed, and when demand arrives it reads and sends the value of that
///   moment, once. With demand but no change since the last value, nothing is sent until the
///   next change.
/// - It finishes when nothing it tracks can change any more: the last read touched no
///   observable property, or every model it touched was deallocated. It never fails.
/// - `cancel()` stops the tracking and releases the closure and the subscriber. (Observation
///   can't withdraw a registration: the model keeps a small handler, which refers to nothing,
///   until its next change.)
///
/// Use a scheduler that runs actions later, such as `DispatchQueue.main`, `RunLoop.main` or a
/// `TestScheduler`. `ImmediateScheduler` runs the read inside Observation's change report,
/// before the new value is stored, and so would read the old value.
///
/// > Thread safety: `observe` is called on `scheduler`, one call at a time, and values and the
/// > completion are delivered there, just after the read. `@Observable` classes are not
/// > thread-safe themselves: choose the scheduler the models belong to (`DispatchQueue.main`
/// > for a model the main thread owns), and change them there or in a way that doesn't race
/// > with the read. `request(_:)` and `cancel()` are safe from any thread.
public struct ObservationTrackingPublisher<Output, Context: Scheduler>: Publisher {
  public typealias Failure = Never

  /// The scheduler that reads the models and delivers the values.
  public let scheduler: Context

  /// The options passed to `scheduler` with each read.
  public let options: Context.SchedulerOptions?

  /// Reads the value; `nil` once the model it reads is gone.
  private let read: () -> Output?

  /// Creates a publisher of what `observe` returns, tracking every observable property it reads.
  ///
  /// ```swift
  /// let name = ObservationTrackingPublisher(scheduler: scheduler) {
  ///   "\(person.first) \(person.last)"
  /// }
  /// ```
  ///
  /// The closure is kept (with what it captures) until the subscription ends; capture a model
  /// weakly when the subscription must not keep it alive.
  ///
  /// - Parameters:
  ///   - scheduler: Runs each read and delivers its value. It must run actions later, not inside
  ///     `schedule`.
  ///   - options: Options for `scheduler`; `nil` by default.
  ///   - observe: Reads the models; called once per value, on `scheduler`.
  public init(
    scheduler: Context,
    options: Context.SchedulerOptions? = nil,
    _ observe: @escaping () -> Output
  ) {
    self.init(scheduler: scheduler, options: options, reading: { observe() })
  }

  /// Creates a publisher whose `read` returns `nil` once its source is gone, which finishes it.
  init(
    scheduler: Context,
    options: Context.SchedulerOptions?,
    reading read: @escaping () -> Output?
  ) {
    self.scheduler = scheduler
    self.options = options
    self.read = read
  }

  public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Never {
    let inner = ObservationTrackingSubscription(
      downstream: subscriber,
      read: read,
      scheduler: scheduler,
      options: options
    )
    subscriber.receive(subscription: inner)
  }
}
