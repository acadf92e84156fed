package import StreamCore

/// The state of a `replaceEmpty(with:)` or `replaceError(with:)` subscription: values pass
/// through until the upstream completes, and a completion that calls for the replacement sends it
/// (once the downstream has requested), then `.finished`.
///
/// ```
/// awaitingSubscription --subscribe--> active
/// active --completion calling for the replacement, nothing requested--> holding
/// active --completion calling for the replacement, requested--> replacing
/// holding --request--> replacing --finishReplacement--> terminal (the caller sends .finished)
/// active --other completion--> terminal
/// any --cancel--> terminal
/// ```
///
/// Every transition only changes the state and returns what the caller must call or drop after
/// the lock; `Downstream` is never called here, so the machine can be tested without threads.
package enum ReplacementState<Downstream, Output> {
  /// Which completion the replacement stands in for.
  package enum Trigger {
    /// `replaceEmpty`: `.finished` before any value.
    case emptyFinish
    /// `replaceError`: any failure; values are held to the downstream's demand.
    case failure
  }

  /// Subscribed to the upstream, which has not completed.
  package struct Active {
    var upstream: any Subscription
    var downstream: Downstream
    var replacement: Output
    var trigger: Trigger
    /// Requested by the downstream; with ``Trigger/failure`` not yet delivered.
    var demand = Subscribers.Demand.none
    /// Whether a value came from the upstream.
    var receivedValue = false
  }

  /// What a transition releases; the caller drops it after the lock.
  package struct Released {
    var upstream: (any Subscription)?
    var downstream: Downstream?
    var replacement: Output?
  }

  /// What the caller does with a completion from the upstream.
  package enum CompletionAction {
    /// Nothing: the subscription already ended.
    case ignore
    /// The replacement waits for a request; drop `released` after the lock.
    case hold(Released)
    /// Send the completion to `downstream`; drop `released` after the lock.
    case forward(Downstream, Released)
    /// Send `replacement` to `downstream`, then call ``finishReplacement()``.
    case replace(Downstream, Output, Released)
  }

  /// What the caller does with the downstream's request.
  package enum RequestAction {
    case none
    /// Pass the demand to the upstream.
    case request(any Subscription)
    /// Send `replacement` to `downstream`, then call ``finishReplacement()``.
    case replace(Downstream, Output)
  }

  case awaitingSubscription(Downstream, Output, Trigger)
  case active(Active)
  /// The upstream completed and the replacement waits for the downstream's first request.
  case holding(Downstream, Output)
  /// The replacement is being sent; `.finished` follows unless cancelled meanwhile.
  case replacing
  case terminal

  /// Takes `upstream` as the subscription; returns the downstream to send this subscription
  /// to, or `nil` when the caller must cancel `upstream`.
  package mutating func subscribe(_ upstream: any Subscription) -> Downstream? {
    guard case .awaitingSubscription(let downstream, let replacement, let trigger) = self else {
      return nil
    }
    self = .active(
      Active(upstream: upstream, downstream: downstream, replacement: replacement, trigger: trigger)
    )
    return downstream
  }

  /// Whether the upstream's subscription is live (subscribed, not ended or cancelled).
  package var isSubscribed: Bool {
    if case .active = self { true } else { false }
  }

  /// Whether a value from the upstream now would go beyond the downstream's demand: with
  /// ``Trigger/failure`` the demand is the downstream's own, passed through, so such a value
  /// means the upstream broke the contract (Combine traps there).
  package var valueExceedsDemand: Bool {
    guard case .active(let active) = self, case .failure = active.trigger else { return false }
    return active.demand == .none
  }

  /// Records a value from the upstream; returns the downstream to send it to, or `nil` to drop
  /// it (the subscription ended or, with ``Trigger/failure``, nothing was requested).
  package mutating func receiveValue() -> Downstream? {
    guard case .active(var active) = self else { return nil }
    switch active.trigger {
    case .emptyFinish:
      guard !active.receivedValue else { return active.downstream }
      active.receivedValue = true
    case .failure:
      guard active.demand > .none else { return nil }
      active.demand -= 1
    }
    self = .active(active)
    return active.downstream
  }

  /// Adds the demand the downstream returned from `receive(_:)`.
  package mutating func addDemand(_ more: Subscribers.Demand) {
    guard case .active(var active) = self else { return }
    active.demand += more
    self = .active(active)
  }

  /// Ends the upstream's part; `isFailure` says which completion arrived.
  package mutating func receiveCompletion(isFailure: Bool) -> CompletionAction {
    guard case .active(let active) = self else { return .ignore }
    let replaces: Bool
    switch active.trigger {
    case .emptyFinish: replaces = !isFailure && !active.receivedValue
    case .failure: replaces = isFailure
    }
    guard replaces else {
      self = .terminal
      return .forward(
        active.downstream,
        Released(upstream: active.upstream, replacement: active.replacement)
      )
    }
    guard active.demand > .none else {
      self = .holding(active.downstream, active.replacement)
      return .hold(Released(upstream: active.upstream))
    }
    self = .replacing
    return .replace(active.downstream, active.replacement, Released(upstream: active.upstream))
  }

  /// Records the downstream's request.
  package mutating func request(_ demand: Subscribers.Demand) -> RequestAction {
    switch self {
    case .active(var active):
      active.demand += demand
      self = .active(active)
      return .request(active.upstream)
    case .holding(let downstream, let replacement):
      self = .replacing
      return .replace(downstream, replacement)
    case .awaitingSubscription, .replacing, .terminal:
      return .none
    }
  }

  /// Called after the replacement was sent: `true` when the caller sends `.finished`, `false`
  /// when the downstream cancelled meanwhile.
  package mutating func finishReplacement() -> Bool {
    guard case .replacing = self else { return false }
    self = .terminal
    return true
  }

  /// Ends the subscription; the caller cancels `released.upstream` and drops the rest after the
  /// lock.
  package mutating func cancel() -> Released {
    defer { self = .terminal }
    switch self {
    case .awaitingSubscription(let downstream, let replacement, _),
      .holding(let downstream, let replacement):
      return Released(downstream: downstream, replacement: replacement)
    case .active(let active):
      return Released(
        upstream: active.upstream,
        downstream: active.downstream,
        replacement: active.replacement
      )
    case .replacing, .terminal:
      return Released()
    }
  }
}
