import Foundation

/// A JSON object of Swift values as JSON text with sorted keys, through `JSONEncoder` (several times faster than
/// `JSONSerialization` on Linux, which matters when a test signs a hundred thousand notifications).
enum TestJSON: Encodable {
    case string(String), integer(Int64), bool(Bool), double(Double), array([TestJSON]), object([String: TestJSON]), null

    static func encode(_ object: [String: Any]) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(try value(object)), as: UTF8.self)
    }

    static func value(_ any: Any) throws -> TestJSON {
        switch any {
        case let value as String: return .string(value)
        case let value as Bool: return .bool(value)
        case let value as Int: return .integer(Int64(value))
        case let value as Int64: return .integer(value)
        case let value as Int32: return .integer(Int64(value))
        case let value as Double: return .double(value)
        case let value as [Any]: return .array(try value.map(Self.value))
        case let value as [String: Any]: return .object(try value.mapValues(Self.value))
        case is NSNull: return .null
        default: throw AppStoreTestSupportError(description: "not a JSON value: \(type(of: any))")
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .string(let value): try container.encode(value)
        case .integer(let value): try container.encode(value)
        case .bool(let value): try container.encode(value)
        case .double(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        case .null: try container.encodeNil()
        }
    }
}
