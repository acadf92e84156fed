/// The namespace of the hot-path subscribers of the mapping and filtering operators.
///
/// They are not nested in their `Publishers` types, whose generic parameters include the whole
/// upstream chain, so the specialised subscriber types stay short however long the chain is.
///
/// The operators subscribe with `upstream.receive(subscriber:)` rather than
/// `upstream.subscribe(_:)`: a chain of `subscribe` specialisations, each with a subscriber type
/// that contains the previous one, looks to the optimiser like an endless specialisation loop,
/// and it stops specialising after the second operator (measured: `map` then `filter` over a
/// sequence ran 40 times slower).
@usableFromInline
package enum Transforming {}
