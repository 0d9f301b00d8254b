import Testing
@testable import FlagKit

@Suite struct FlagDocumentTests {
    /// The slow definition of a flip: edit the JSON, validate the whole document again.
    static func revalidated(_ document: FlagDocument, _ key: String, _ value: JSONValue) throws -> FlagDocument {
        guard case .object(var root) = document.jsonValue, case .object(var flags)? = root["flags"],
              case .object(var flag)? = flags[key] else { throw FlagDocumentError.invalid([]) }
        flag["default"] = value
        flag["rules"] = nil
        flags[key] = .object(flag)
        root["flags"] = .object(flags)
        return try FlagDocument(validating: .object(root))
    }

    @Test(arguments: ["flags/production.json", "flags/staging.json"])
    func settingADefaultEqualsEditingTheJSONAndValidatingAgain(file: String) throws {
        let document = try FlagDocument.decode(TestSupport.bytes(file))
        let candidates: [JSONValue] = [.bool(true), .bool(false), .integer(0), .integer(-7), .number(2.5), .string(""), .string("x\"y"),
                                       .null, .array([.integer(1)]), .object(["a": .bool(true)])]
        var compared = 0
        for key in document.sortedFlagKeys {
            for value in candidates {
                let fast = document.settingDefault(value, for: key)
                let slow = try? Self.revalidated(document, key, value)
                #expect(fast == slow, "\(key) = \(value)")
                #expect(fast?.canonicalBytes == slow?.canonicalBytes)
                if fast != nil { compared += 1 }
            }
        }
        #expect(compared >= document.flags.count * 2)  // every flag accepted at least two of the values
        #expect(document.settingDefault(.bool(true), for: "noSuchFlag") == nil)
    }
}
