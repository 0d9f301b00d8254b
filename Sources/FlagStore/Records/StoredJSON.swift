import CSQLite
import FlagKit

/// JSON kept in text columns (token scopes, webhook events, a change's touched flags and conflicts): written
/// canonically, read strictly. A value that does not read back was written by something other than this
/// store (a hand edit), and is reported as corruption rather than guessed at.
enum StoredJSON {
    /// A canonical JSON array of `strings`, in the order given.
    static func text<Strings: Sequence>(_ strings: Strings) -> String where Strings.Element == String {
        JSONValue.array(strings.map(JSONValue.string)).canonicalString
    }

    /// The canonical text of `value`.
    static func text(_ value: JSONValue) -> String { value.canonicalString }

    /// The value of `text`, read from `column`.
    static func value(_ text: String, column: String) throws -> JSONValue {
        do {
            return try JSONParser.parse(text).value
        } catch {
            throw corrupt("\(column) holds no JSON: \(error)")
        }
    }

    /// The array of strings in `text`, read from `column`.
    static func strings(_ text: String, column: String) throws -> [String] {
        guard case .array(let elements) = try value(text, column: column) else {
            throw corrupt("\(column) is not a JSON array")
        }
        return try elements.map { element in
            guard case .string(let string) = element else { throw corrupt("\(column) holds a \(element.typeName)") }
            return string
        }
    }

    /// `SQLITE_CORRUPT` with `message`: what `FlagStoreError.database` carries for rows the store cannot read.
    static func corrupt(_ message: String) -> DatabaseError {
        DatabaseError(extendedResultCode: SQLITE_CORRUPT, message: message, sql: nil)
    }
}
