public import Observation
public import StreamCore

extension Observable where Self: AnyObject {
  /// A publisher of one property of this model: its value now, then its value after each change.
  ///
  /// ```swift
  /// @Observable final class SearchModel {
  ///   var query = ""
  /// }
  ///
  /// let cancellable = model.publisher(for: \.query, scheduler: DispatchQueue.main)
  ///   .debounce(for: .milliseconds(300), scheduler: DispatchQueue.main)
  ///   .sink { runSearch($0) }
  /// ```
  ///
  /// The `$query` of an `ObservableObject` for an `@Observable` class. It behaves as
  /// ``ObservationTrackingPublisher`` does for a closure reading `self[keyPath: keyPath]`: the
  /// first value is read on `scheduler` once the subscriber asks for one, each change is read
  /// on `scheduler` after it is stored, a burst of changes before that read gives one value (the
  /// last), and changes without demand give the value of the moment demand arrives.
  ///
  /// The publisher and its subscriptions hold the model weakly, so a model may keep a
  /// subscription to its own property in its own `cancellables` without a retain cycle. Once
  /// the model is deallocated, the publisher finishes.
  ///
  /// > Thread safety: The model is read on `scheduler`, and values are delivered there. Change
  /// > the model where its reads don't race with yours, usually on that same scheduler.
  /// > `request(_:)` and `cancel()` are safe from any thread.
  ///
  /// - Parameters:
  ///   - keyPath: The property to publish. A key path through several observable models
  ///     tracks each property it reads.
  ///   - scheduler: Reads the property and delivers the values. It must run actions later, not
  ///     inside `schedule`: `DispatchQueue.main`, `RunLoop.main`, a `TestScheduler`.
  ///   - options: Options for `scheduler`; `nil` by default.
  /// - Returns: A publisher of the property's values that never fails.
  public func publisher<Value, Context: Scheduler>(
    for keyPath: KeyPath<Self, Value>,
    scheduler: Context,
    options: Context.SchedulerOptions? = nil
  ) -> ObservationTrackingPublisher<Value, Context> {
    ObservationTrackingPublisher(
      scheduler: scheduler,
      options: options,
      reading: { [weak self] in self.map { $0[keyPath: keyPath] } }
    )
  }
}
