import FlagKit

extension JSONValue {
    /// `self[key]` for objects. Here rather than in TestSupport: FlagCtlKit has its own (`@testable` makes it visible in
    /// its tests), and two of them would make every member access ambiguous there.
    package subscript(key: String) -> JSONValue? { objectValue?[key] }
}
