import FlagKit

extension FlagDocument {
    /// This document with its flags changed by `change` (validated again: an invalid change throws).
    package func modified(_ change: (inout [String: JSONValue]) -> Void) throws -> FlagDocument {
        guard case .object(var root) = jsonValue, case .object(var flags)? = root["flags"] else {
            throw FlagDocumentError.invalid([])
        }
        change(&flags)
        root["flags"] = .object(flags)
        return try FlagDocument(validating: .object(root))
    }
}
