import AppStoreNotifications
import AppStoreTestSupport
import FlagKit
import FlagServiceTestSupport
import Foundation
import TestSupport
import Testing
@testable import FlagService

/// `POST /v1/environments/{env}/offer-signatures` over a real socket and a real SQLite file, the split published
/// through the real write route: an arm's offer is signed with a throw-away In-App Purchase key and the signature
/// verifies with its public half over Apple's payload; what no arm names, a bad body, a server without a key and the
/// wrong tokens are refused.
@Suite struct OfferSignaturesControllerTests {
    static let path = "/v1/environments/production/offer-signatures"
    /// Half the installs see the monthly product at its own terms, half with the win-back offer.
    static let split = """
        {"type": "string", "default": "symi_plus_monthly_399",
         "rules": [{"value": "symi_plus_monthly_499/winback_50", "rollout": 50}]}
        """
    /// Another flag's offer: not signable through `paywallProduct`, only when a request names this flag.
    static let yearly = #"{"type": "string", "default": "", "rules": [{"value": "symi_plus_yearly/yearly_winback", "rollout": 10}]}"#

    /// A server whose offers are signed by `key` (ID `2X9R4HXF34`, bundle `app.symi.journal`), with the split published.
    static func withServer(key: AppStoreTestAPIKey?, _ body: (TestServer) async throws -> Void) async throws {
        var options = TestServer.options
        if let key {
            let apiKey = try AppStoreAPIKey(pem: Array(key.privateKeyPEM.utf8), keyID: "2X9R4HXF34")
            options.appStore.offerSigner = PromotionalOfferSigner(key: apiKey, bundleID: "app.symi.journal")
        }
        let server = try TestServer(options: options)
        defer { server.stop() }
        for (flag, definition) in [("paywallProduct", split), ("yearlyWinback", yearly)] {
            let response = try await server.write("PUT", "/v1/environments/production/flags/\(flag)", json: definition)
            guard response.status == 200 else { throw TestFailure("PUT \(flag): \(response.status) \(response.text)") }
        }
        try await body(server)
    }

    /// The value of the metric line starting with `series` in `exposition`.
    static func value(_ exposition: String, _ series: String) -> Int? {
        exposition.split(separator: "\n").first { $0.hasPrefix(series + " ") }.flatMap { Int($0.dropFirst(series.count + 1)) }
    }

    /// Whether `answer` (a 200's body) is a signature of what it names that `key` verifies over Apple's payload.
    static func verifies(_ answer: JSONValue, key: AppStoreTestAPIKey, appAccountToken: UUID?) throws -> Bool {
        let nonce = try #require(answer["nonce"]?.stringValue.flatMap(UUID.init(uuidString:)))
        let timestamp = try #require(answer["timestamp"]?.integerValue)
        let signature = try #require(answer["signature"]?.stringValue.flatMap { Data(base64Encoded: $0) })
        let payload = PromotionalOfferSigner.payload(
            bundleID: "app.symi.journal", keyID: "2X9R4HXF34", productID: try #require(answer["product"]?.stringValue),
            offerID: try #require(answer["offer"]?.stringValue), appAccountToken: appAccountToken, nonce: nonce, timestamp: timestamp)
        return key.verifiesDER(signature: [UInt8](signature), of: Array(payload.utf8))
    }

    @Test func anArmsOfferIsSignedAndTheSignatureVerifiesOverApplesPayload() async throws {
        let key = try AppStoreTestAPIKey()
        try await Self.withServer(key: key) { server in
            let token = try #require(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"))
            let before = ServiceMetrics.wallMilliseconds()
            let response = try await server.change("POST", Self.path, json: """
                {"product": "symi_plus_monthly_499", "offer": "winback_50", "appAccountToken": "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"}
                """, token: server.readerToken)
            let after = ServiceMetrics.wallMilliseconds()
            #expect(response.status == 200, "\(response.text)")
            #expect(response.header("Cache-Control") == "no-store")
            let answer = try response.json()
            #expect(Set(answer.objectValue?.keys.map { $0 } ?? []) == ["product", "offer", "keyID", "nonce", "timestamp", "signature", "appAccountToken"])
            #expect(answer["product"] == "symi_plus_monthly_499" && answer["offer"] == "winback_50" && answer["keyID"] == "2X9R4HXF34")
            #expect(answer["appAccountToken"] == "e621e1f8-c36c-495a-93fc-0c247a3e6e5f")
            let nonce = try #require(answer["nonce"]?.stringValue)
            #expect(nonce == nonce.lowercased() && UUID(uuidString: nonce) != nil)
            #expect((before...after).contains(try #require(answer["timestamp"]?.integerValue)))
            #expect(try Self.verifies(answer, key: key, appAccountToken: token))
            // The token is part of what is signed: the same signature does not verify without it, nor with another key.
            #expect(try !Self.verifies(answer, key: key, appAccountToken: nil))
            #expect(try !Self.verifies(answer, key: try AppStoreTestAPIKey(), appAccountToken: token))

            // A writer's token may ask too; without an appAccountToken the username is empty; each answer a new nonce.
            let anonymous = try await server.change("POST", Self.path, json: #"{"product": "symi_plus_monthly_499", "offer": "winback_50"}"#,
                                                    token: server.writerToken)
            #expect(anonymous.status == 200, "\(anonymous.text)")
            let second = try anonymous.json()
            #expect(second["appAccountToken"] == nil && second["nonce"] != answer["nonce"])
            #expect(try Self.verifies(second, key: key, appAccountToken: nil))

            // Another flag's offer, named with that flag.
            let yearly = try await server.change("POST", Self.path, json: """
                {"product": "symi_plus_yearly", "offer": "yearly_winback", "flag": "yearlyWinback", "appAccountToken": null}
                """, token: server.readerToken)
            #expect(yearly.status == 200, "\(yearly.text)")
            #expect(try Self.verifies(try yearly.json(), key: key, appAccountToken: nil))

            let refused = try await server.change("POST", Self.path, json: #"{"product": "symi_plus_monthly_499", "offer": "winback_40"}"#,
                                                  token: server.readerToken)
            #expect(refused.status == 404)
            let metrics = try await server.get("/metrics").text
            #expect(Self.value(metrics, #"flagserver_offer_signatures_total{outcome="signed"}"#) == 3, "\(metrics)")
            #expect(Self.value(metrics, #"flagserver_offer_signatures_total{outcome="refused"}"#) == 1)
        }
    }

    @Test(arguments: [
        // An offer no arm names, another flag's offer, the arm's product with an offer it does not name.
        #"{"product": "symi_plus_monthly_499", "offer": "winback_40"}"#,
        #"{"product": "symi_plus_yearly", "offer": "yearly_winback"}"#,
        #"{"product": "symi_plus_monthly_399", "offer": "winback_50"}"#,
        // The offer named with a flag whose arms do not name it, a missing flag, a flag that is not a string flag.
        #"{"product": "symi_plus_monthly_499", "offer": "winback_50", "flag": "yearlyWinback"}"#,
        #"{"product": "symi_plus_monthly_499", "offer": "winback_50", "flag": "noSuchFlag"}"#,
        #"{"product": "symi_plus_monthly_499", "offer": "winback_50", "flag": "monetizationEnabled"}"#,
    ])
    func anOfferNoArmNamesIsNotSigned(body: String) async throws {
        try await Self.withServer(key: try AppStoreTestAPIKey()) { server in
            let response = try await server.change("POST", Self.path, json: body, token: server.readerToken)
            #expect(response.status == 404, "\(response.text)")
            #expect(try response.errorCode() == "offer_not_in_experiment")
            let error = try response.json()["error"]
            let flag = try #require(error?["flag"]?.stringValue)
            #expect(body.contains(flag) || flag == "paywallProduct")
            if flag == "paywallProduct" {
                #expect(error?["arms"] == .array(["symi_plus_monthly_499/winback_50", "symi_plus_monthly_399"]))
                #expect(error?["message"]?.stringValue?.contains("arms symi_plus_monthly_499/winback_50, symi_plus_monthly_399") == true)
            }
        }
    }

    @Test func aBadRequestIsRefusedWithThePathOfWhatIsWrong() async throws {
        try await Self.withServer(key: try AppStoreTestAPIKey()) { server in
            let cases: [(String, String)] = [
                (#"{"offer": "winback_50"}"#, "/product"),
                (#"{"product": "symi_plus_monthly_499"}"#, "/offer"),
                (#"{"product": "symi_plus_monthly_499/winback_50", "offer": "winback_50"}"#, "/product"),
                (#"{"product": "symi_plus_monthly_499", "offer": ""}"#, "/offer"),
                (#"{"product": 5, "offer": "winback_50"}"#, "/product"),
                (#"{"product": "symi_plus_monthly_499", "offer": "winback_50", "appAccountToken": "not-a-uuid"}"#, "/appAccountToken"),
                (#"{"product": "symi_plus_monthly_499", "offer": "winback_50", "appAccountToken": 7}"#, "/appAccountToken"),
                (#"{"product": "symi_plus_monthly_499", "offer": "winback_50", "flag": ""}"#, "/flag"),
                (#"{"product": "symi_plus_monthly_499", "offer": "winback_50", "discount": 90}"#, "/discount"),
                (#"["symi_plus_monthly_499"]"#, ""),
            ]
            for (body, path) in cases {
                let response = try await server.change("POST", Self.path, json: body, token: server.readerToken)
                #expect(response.status == 422, "\(body): \(response.text)")
                #expect(try response.errorCode() == "invalid_request", "\(body)")
                #expect(try response.json()["error"]?["details"] == .array([.object(["path": .string(path),
                    "message": try #require(try response.json()["error"]?["details"]?.arrayValue?.first?["message"])])]), "\(body)")
            }
            let malformed = try await server.change("POST", Self.path, json: #"{"product": "#, token: server.readerToken)
            #expect(try malformed.status == 400 && (malformed.errorCode()) == "malformed_json")
            let text = try await RawHTTP.request(port: server.port, method: "POST", path: Self.path,
                                                 headers: [("Authorization", "Bearer \(server.readerToken)"), ("Content-Type", "text/plain")],
                                                 body: Array(#"{"product": "symi_plus_monthly_499", "offer": "winback_50"}"#.utf8))
            #expect(text.status == 415)
            let metrics = try await server.get("/metrics").text
            #expect(Self.value(metrics, #"flagserver_offer_signatures_total{outcome="refused"}"#) == cases.count + 2)
            #expect(Self.value(metrics, #"flagserver_offer_signatures_total{outcome="signed"}"#) == 0)
        }
    }

    @Test func withoutAKeyNothingIsSignedAndTheAnswerSaysWhy() async throws {
        try await Self.withServer(key: nil) { server in
            let response = try await server.change("POST", Self.path, json: #"{"product": "symi_plus_monthly_499", "offer": "winback_50"}"#,
                                                   token: server.readerToken)
            #expect(response.status == 503, "\(response.text)")
            #expect(try response.errorCode() == "offer_signing_unavailable")
            #expect(response.header("Retry-After") == nil, "configuration, not load")
            // A bad body is still named as such.
            let bad = try await server.change("POST", Self.path, json: #"{"product": "symi_plus_monthly_499"}"#, token: server.readerToken)
            #expect(bad.status == 422)
        }
    }

    @Test func onlyATokenThatMayReadTheEnvironmentGetsASignature() async throws {
        try await Self.withServer(key: try AppStoreTestAPIKey()) { server in
            let body = #"{"product": "symi_plus_monthly_499", "offer": "winback_50"}"#
            // Reads are public on this server, yet a signature always needs a token.
            let none = try await RawHTTP.request(port: server.port, method: "POST", path: Self.path,
                                                 headers: [("Content-Type", "application/json")], body: Array(body.utf8))
            #expect(none.status == 401)
            let wrong = try await server.change("POST", Self.path, json: body, token: "sfl_not_a_real_token_000000000000")
            #expect(try wrong.status == 401 && (wrong.errorCode()) == "unauthorized")
            let staging = try server.token("staging-reader", .reader, environments: ["staging"])
            let other = try await server.change("POST", Self.path, json: body, token: staging)
            #expect(try other.status == 403 && (other.errorCode()) == "environment_not_allowed")
            // The scoped token is served in its own environment (where no arm names the offer).
            let own = try await server.change("POST", "/v1/environments/staging/offer-signatures", json: body, token: staging)
            #expect(try own.status == 404 && (own.errorCode()) == "offer_not_in_experiment")
            let unknown = try await server.change("POST", "/v1/environments/nowhere/offer-signatures", json: body, token: server.readerToken)
            #expect(try unknown.status == 404 && (unknown.errorCode()) == "unknown_environment")
            let get = try await server.get(Self.path, headers: [("Authorization", "Bearer \(server.readerToken)")])
            #expect(get.status == 405)
        }
    }
}
