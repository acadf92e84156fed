/// Traps because an upstream sent `event` (`"a value"`, `"a completion"`) to the subscriber of
/// `operatorName` before its subscription: the upstream broke the `Subscriber` contract. Combine
/// traps there too, in the operators that call this.
@usableFromInline
package func trapEventBeforeSubscription(_ operatorName: String, _ event: String) -> Never {
  preconditionFailure(
    "\(operatorName): the upstream sent \(event) before its subscription (a Subscriber contract violation)"
  )
}

/// Traps because `operatorName`'s subscription was asked for values before the upstream's
/// subscription arrived, which only a caller holding the operator's subscriber as a subscription
/// can do. Combine traps there too, in the operators built like `tryFilter`.
@usableFromInline
package func trapRequestBeforeSubscription(_ operatorName: String) -> Never {
  preconditionFailure(
    "\(operatorName): request(_:) before the upstream's subscription arrived"
  )
}

/// Traps because an upstream sent a value to the subscriber of `operatorName` that its
/// subscriber had not requested, where the operator passes the subscriber's demand through
/// (`replaceError`): the upstream broke the `Subscriber` contract. Combine traps there too.
@usableFromInline
package func trapValueBeyondDemand(_ operatorName: String) -> Never {
  preconditionFailure(
    "\(operatorName): the upstream sent a value beyond the subscriber's demand (a Subscriber contract violation)"
  )
}

/// Traps because an upstream of `operatorName` completed a second time (a failure that `catch`
/// is already handling, or one from the publisher it replaced), as Combine's `catch` and
/// `tryCatch` trap.
@usableFromInline
package func trapSecondCompletion(_ operatorName: String) -> Never {
  preconditionFailure(
    "\(operatorName): the upstream completed a second time (a Subscriber contract violation)"
  )
}

/// Traps because an upstream of `operatorName` sent an event after its failure, from inside the
/// cancel of another input that the failure is cancelling, as Combine's `flatMap`, which cancels
/// its children under its lock, crashes there.
@usableFromInline
package func trapEventDuringFailureCancellation(_ operatorName: String) -> Never {
  preconditionFailure(
    "\(operatorName): the upstream sent an event after its failure, while its children were being cancelled (a Subscriber contract violation)"
  )
}
