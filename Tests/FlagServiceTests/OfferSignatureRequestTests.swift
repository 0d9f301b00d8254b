import FlagKit
import Foundation
import Testing
@testable import FlagService

/// The body of an offer signature request: what is taken (the token in any case, the default flag) and every refusal
/// as 422 `invalid_request` at the member's JSON pointer.
@Suite struct OfferSignatureRequestTests {
    static func parse(_ text: String) throws -> OfferSignatureRequest {
        try OfferSignatureRequest(body: try JSONParser.parse(Array(text.utf8)).value)
    }

    /// The path of the refusal of `text`, or nil when it is taken.
    static func refusalPath(_ text: String) throws -> String? {
        do {
            _ = try parse(text)
            return nil
        } catch let error as ServiceError {
            #expect(error.status == .unprocessableContent && error.code == "invalid_request")
            return error.details.first?.path
        }
    }

    @Test func membersAreReadWithTheirDefaults() throws {
        let full = try Self.parse(#"{"product": "symi_plus_monthly_499", "offer": "winback_50", "flag": "priceTest", "appAccountToken": "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"}"#)
        #expect(full.product == "symi_plus_monthly_499" && full.offer == "winback_50" && full.flag == "priceTest")
        #expect(full.appAccountToken == UUID(uuidString: "e621e1f8-c36c-495a-93fc-0c247a3e6e5f"))
        #expect(full.armValue == "symi_plus_monthly_499/winback_50")
        let minimal = try Self.parse(#"{"product": "p.1-x_y", "offer": "o", "appAccountToken": null, "flag": null}"#)
        #expect(minimal.flag == "paywallProduct" && minimal.appAccountToken == nil)
        #expect(try Self.parse(#"{"product": "p", "offer": "o", "appAccountToken": "e621e1f8-c36c-495a-93fc-0c247a3e6e5f"}"#).appAccountToken != nil)
    }

    @Test(arguments: [
        (#"[]"#, ""), (#""p/o""#, ""),
        (#"{"offer": "o"}"#, "/product"), (#"{"product": "p"}"#, "/offer"),
        (#"{"product": null, "offer": "o"}"#, "/product"), (#"{"product": "p", "offer": "a b"}"#, "/offer"),
        (#"{"product": "p/o", "offer": "o"}"#, "/product"), (#"{"product": "p", "offer": "o/x"}"#, "/offer"),
        (#"{"product": "p", "offer": "o", "appAccountToken": "e621e1f8c36c495a93fc0c247a3e6e5f"}"#, "/appAccountToken"),
        (#"{"product": "p", "offer": "o", "appAccountToken": "{e621e1f8-c36c-495a-93fc-0c247a3e6e5f}"}"#, "/appAccountToken"),
        (#"{"product": "p", "offer": "o", "appAccountToken": true}"#, "/appAccountToken"),
        (#"{"product": "p", "offer": "o", "flag": 3}"#, "/flag"),
        (#"{"product": "p", "offer": "o", "a/b": 1}"#, "/a~1b"),
    ])
    func refusalsNameTheMember(body: String, path: String) throws {
        #expect(try Self.refusalPath(body) == path)
    }

    @Test func anIdentifierIsAtMostAHundredCharacters() throws {
        let longest = String(repeating: "a", count: 100)
        #expect(try Self.refusalPath(#"{"product": "\#(longest)", "offer": "o"}"#) == nil)
        #expect(try Self.refusalPath(#"{"product": "\#(longest)a", "offer": "o"}"#) == "/product")
    }
}
