@testable import AppStoreNotifications
import Foundation
import Testing

/// The compact serialization (RFC 7515 §7.1), strictly.
@Suite struct CompactJWSTests {
    @Test func theSigningInputIsTheFirstTwoPartsAsSent() throws {
        let header = Base64URL.encode(Array(#"{"alg":"ES256","x5c":["a"],"kid":"k"}"#.utf8))
        let payload = Base64URL.encode(Array(#"{"x":1}"#.utf8))
        let jws = try CompactJWS("\(header).\(payload).\(Base64URL.encode([1, 2, 3]))")
        #expect(jws.header.alg == "ES256" && jws.header.x5c == ["a"])
        #expect(jws.payload == Data(#"{"x":1}"#.utf8) && jws.signature == [1, 2, 3])
        #expect(jws.signingInput == Array("\(header).\(payload)".utf8))
    }

    @Test func aHeaderOfTheWrongShapeIsNotAJWS() {
        for header in [#"{"alg":1}"#, #"{"x5c":"abc"}"#, #"[]"#, "not json"] {
            let text = "\(Base64URL.encode(Array(header.utf8))).e30.AA"
            let error = #expect(throws: AppStoreVerificationError.self) { try CompactJWS(text) }
            #expect(error?.reason == .invalidJWS, "\(header)")
        }
    }
}
