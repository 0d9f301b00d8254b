import FlagKit

extension JSONValue {
    /// `self[key]` for objects. Each target of FlagService's tests has this one line rather than TestSupport: FlagCtlKit
    /// has its own (`@testable` makes it visible), and two of them would make every member access ambiguous.
    subscript(key: String) -> JSONValue? { objectValue?[key] }
}
