public import Foundation
public import StreamCore

// Foundation's coders already have the `encode(_:)` and `decode(_:from:)` methods that
// `TopLevelEncoder` and `TopLevelDecoder` ask for, with `Data` as the encoded form.

extension JSONEncoder: TopLevelEncoder {}
extension JSONDecoder: TopLevelDecoder {}
extension PropertyListEncoder: TopLevelEncoder {}
extension PropertyListDecoder: TopLevelDecoder {}
