import FlagKit
import FlagServiceTestSupport
import FlagStore
import Testing
@testable import FlagService

/// The body of `POST /v1/webhooks`, read strictly with every problem's path.
@Suite struct WebhookRegistrationTests {
    static let known = ["production", "staging"]

    static func issues(_ body: JSONValue) -> [String] {
        do {
            _ = try WebhookRegistration(body, environments: known)
            return []
        } catch {
            #expect(error.status.code == 422 && error.code == "invalid_body")
            return error.details.map { "\($0.path): \($0.message)" }
        }
    }

    @Test func readsAFullRegistrationAndAMinimalOne() throws {
        let full = try WebhookRegistration(["url": "https://hooks.example/symi", "events": ["version.published", "request.created"],
                                            "environments": ["production"], "secret": "whsec_mine"], environments: Self.known)
        #expect(full.url == "https://hooks.example/symi" && full.events == ["version.published", "request.created"])
        #expect(full.environments == ["production"] && full.secret == "whsec_mine")
        let minimal = try WebhookRegistration(["url": "http://127.0.0.1:9000/", "events": ["*"], "environments": nil], environments: Self.known)
        #expect(minimal.environments == nil && minimal.secret == nil, "null environments: all; no secret: one is generated")
    }

    @Test func listsEveryProblemWithItsPath() {
        #expect(Self.issues(["url": 1, "events": "*", "extra": true]) == [
            "/extra: unknown member", "/url: must be a string (an http or https URL)", "/events: must be an array of strings",
        ])
        #expect(Self.issues(["url": "https://a.example", "events": [], "environments": ["prod", 3], "secret": ""]) == [
            #"/events: must name at least one event (or "*")"#, "/environments/1: must be a string",
            "/environments/0: unknown environment 'prod' (known: production, staging)",
            "/secret: must be a string of 1 to 200 bytes (absent: one is generated)",
        ])
        #expect(Self.issues(["url": "https://a.example", "events": ["*"], "environments": []]) == [
            "/environments: must name at least one environment (null: all)",
        ])
        #expect(Self.issues([1, 2]) == [": must be an object"])
    }

    @Test func refusesUserInformationInTheURL() {
        #expect(WebhookRegistration.urlProblem("https://user:secret@hooks.example/x")?.contains("user information") == true)
        #expect(WebhookRegistration.urlProblem("https://hooks.example/x?to=a@b") == nil, "an @ after the host is fine")
        #expect(WebhookRegistration.urlProblem("hooks.example/x") != nil, "no scheme (which one is the store's check)")
        #expect(WebhookRegistration.urlProblem("https://hooks.example:8443/symi") == nil)
    }

    @Test func theStoresRefusalsPointAtTheMember() {
        let refusal = WebhookRegistration.refusal(FlagStoreError.invalidArgument(name: "events", reason: "unknown event \"x\""))
        #expect(refusal.status.code == 422 && refusal.details == [ValidationIssue(path: "/events", message: "unknown event \"x\"")])
        #expect(WebhookRegistration.refusal(FlagStoreError.busy(cause: DatabaseError(extendedResultCode: 5, message: "busy", sql: nil)))
            .status.code == 503)
    }
}
