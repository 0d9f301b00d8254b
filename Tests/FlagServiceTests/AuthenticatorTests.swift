import FlagServiceTestSupport
import FlagStore
import Foundation
import HTTPServer
import TestSupport
import Testing
@testable import FlagService

/// Bearer parsing and role checks against a real token table.
@Suite struct AuthenticatorTests {
    func request(_ authorization: String?) -> HTTPRequest {
        var headers = HTTPHeaders()
        if let authorization { headers.add(name: "Authorization", value: authorization) }
        return HTTPRequest(method: .PUT, target: "/x", headers: headers)
    }

    /// The parse is `HTTPBearerCredentials`' (HTTPServerTests); here, what the service answers for each outcome.
    @Test func parsesBearerCaseInsensitively() throws {
        #expect(try Authenticator.secret(request("Bearer sfl_abc"), needed: .writer) == "sfl_abc")
        #expect(try Authenticator.secret(request("bearer   sfl_abc "), needed: .writer) == "sfl_abc")
        for (authorization, challenge) in [(nil, #"Bearer realm="flagserver""#),
                                           ("Basic dXNlcg==", #"Bearer realm="flagserver", error="invalid_token""#),
                                           ("Bearer", #"Bearer realm="flagserver", error="invalid_token""#)] {
            do {
                _ = try Authenticator.secret(request(authorization), needed: .writer)
                Issue.record("\(authorization ?? "no Authorization") must be refused")
            } catch {
                #expect(error.status.code == 401)
                #expect(error.headers["WWW-Authenticate"] == challenge)
            }
        }
    }

    @Test func rolesFreshAndCached() throws {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = try FlagStore.open(location: directory + "/a.sqlite")
        defer { store.close() }
        let reader = try store.createToken(name: "r", role: .reader).secret
        let writer = try store.createToken(name: "w", role: .writer).secret
        let authenticator = try Authenticator(store: store)
        #expect(try authenticator.requireFresh(request("Bearer \(writer)"), role: .writer).name == "w")
        #expect(try authenticator.requireCached(request("Bearer \(reader)"), role: .reader).name == "r")
        do {
            _ = try authenticator.requireFresh(request("Bearer \(reader)"), role: .writer)
            Issue.record("a reader must not write")
        } catch {
            #expect(error.status.code == 403)
        }
        do {
            _ = try authenticator.requireFresh(request(nil), role: .writer)
            Issue.record("no token must not write")
        } catch {
            #expect(error.status.code == 401)
            #expect(error.headers["WWW-Authenticate"] == #"Bearer realm="flagserver""#)
        }
        // A token created after the table was loaded is seen by fresh checks at once, by cached ones after reload.
        let late = try store.createToken(name: "late", role: .reader).secret
        #expect(throws: ServiceError.self) { try authenticator.requireCached(request("Bearer \(late)"), role: .reader) }
        try authenticator.reload()
        #expect(try authenticator.requireCached(request("Bearer \(late)"), role: .reader).name == "late")
    }

    /// The head check's lookup: a miss is certain only while no token was created or revoked since the table was
    /// read; other commits (a flip, a publish) leave it certain (if any commit made every miss `unsure`, an invented
    /// token's body would be read and the store asked while flips land). A token created since (here in
    /// the same file, as `flagserver token create` does from another process) makes a miss `unsure` and starts a
    /// reload, after which the token is known.
    @Test func aHeadMissIsCertainOnlyWhileTheDatabaseIsUnchanged() async throws {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = try FlagStore.open(location: directory + "/a.sqlite")
        defer { store.close() }
        let writer = try store.createToken(name: "w", role: .writer).secret
        let authenticator = try Authenticator(store: store)
        #expect(authenticator.headLookup(secret: writer) == .known)
        #expect(authenticator.headLookup(secret: "sfl_invented") == .unknown)
        let other = try FlagStore.open(location: directory + "/a.sqlite")
        _ = try other.publish(environment: "production", document: Array(#"{"flags":{},"cohorts":{}}"#.utf8), author: "flip")
        _ = try store.publish(environment: "staging", document: Array(#"{"flags":{},"cohorts":{}}"#.utf8), author: "flip")
        #expect(authenticator.headLookup(secret: "sfl_invented") == .unknown, "commits that change no token")
        let late = try other.createToken(name: "late", role: .writer).secret
        other.close()
        #expect(authenticator.headLookup(secret: late) == .unsure)
        let deadline = ContinuousClock.now + .seconds(10)
        while authenticator.headLookup(secret: late) != .known && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(authenticator.headLookup(secret: late) == .known, "the background reload found it")
        #expect(authenticator.headLookup(secret: "sfl_invented") == .unknown, "certain again once reloaded")
    }
}
