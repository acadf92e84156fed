/// Traps because an upstream sent `event` (`"a value"`, `"a completion"`) to the subscriber of
/// `operatorName` before its subscription: the upstream broke the `Subscriber` contract. Combine
/// traps there too, in the operators that call this.
@usableFromInline
func trapEventBeforeSubscription(_ operatorName: String, _ event: String) -> Never {
  preconditionFailure(
    "\(operatorName): the upstream sent \(event) before its subscription (a Subscriber contract violation)"
  )
}
