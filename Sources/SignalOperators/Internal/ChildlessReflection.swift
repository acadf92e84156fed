/// A subscription that reflects as most of Combine's subscriptions do: its mirror has no
/// children (`Mirror(reflecting: subscription).children` is empty, rather than the lock and the
/// state machine), and a playground shows its `description`. Conform to get both.
///
/// It costs nothing at run time: it only shapes debugger and playground output.
@usableFromInline
package protocol ChildlessReflection: CustomStringConvertible, CustomReflectable,
  CustomPlaygroundDisplayConvertible
{}

extension ChildlessReflection {
  /// No children.
  @usableFromInline
  package var customMirror: Mirror { Mirror(self, children: [:]) }

  /// The description, as Combine's playground display.
  @usableFromInline
  package var playgroundDescription: Any { description }
}
