import FlagKit
@testable import FlagService
import FlagServiceTestSupport
import FlagStore
import Foundation
import TestSupport
import Testing

/// GET of documents and history over real HTTP.
@Suite struct FlagServiceReadsTests {
    @Test func documentEnvelopeCarriesMetadataAndTheCanonicalDocument() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let response = try await server.get("/v1/environments/production/document")
        #expect(response.status == 200)
        #expect(response.header("Content-Type") == "application/json")
        #expect(response.header("Cache-Control") == "public, max-age=5, stale-while-revalidate=30, stale-if-error=86400")
        let body = try response.json()
        #expect(body["environment"] == "production")
        #expect(body["version"] == 1)
        #expect(body["author"] == "flagserver")
        // The file's name only: the server's directories are nobody's business.
        #expect(body["message"] == "initial import of production.json")
        #expect(body["publishedAt"]?.stringValue?.hasSuffix("Z") == true)
        let expected = try FlagDocument.decode(TestServer.flagFile("production"))
        let document = try #require(body["document"])
        #expect(try FlagDocument(validating: document) == expected)
        #expect(body["contentHash"]?.stringValue == SHA256.hexDigest(document.canonicalBytes))
        #expect(body["contentHash"]?.stringValue == expected.contentHash)
        let etag = try #require(response.header("ETag"))
        #expect(etag.hasPrefix("\"1-") && etag.hasSuffix("\""))
    }

    @Test func ifNoneMatchGives304ForTheCurrentTagInAnyForm() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let etag = try await server.etag()
        for value in [etag, "W/\(etag)", "\"other\", \(etag)", "*", "\"a,b\" , W/\(etag)"] {
            let response = try await server.get("/v1/environments/production/document", headers: [("If-None-Match", value)])
            #expect(response.status == 304, "If-None-Match: \(value)")
            #expect(response.body.isEmpty)
            #expect(response.header("ETag") == etag)
            #expect(response.header("Cache-Control") != nil)
        }
        for value in ["\"1-0000000000000000\"", "garbage", "W/\"other\""] {
            let response = try await server.get("/v1/environments/production/document", headers: [("If-None-Match", value)])
            #expect(response.status == 200, "If-None-Match: \(value)")
        }
    }

    /// A long `If-None-Match` list (matched outside the snapshot store's lock) answers as a short one: 304 when it names
    /// a tag of the current version anywhere, also with gzip, in one field line or spread over several; 200 otherwise;
    /// and a missing environment is still 404.
    @Test func aLongIfNoneMatchListIsMatchedLikeAShortOne() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let etag = try await server.etag()
        let others = (0..<90).map { "\"\($0)-00000000000000\($0 % 10)\"" }.joined(separator: ", ")
        #expect(others.utf8.count > DocumentsController.tagsMatchedUnderLock)
        let path = "/v1/environments/production/document"
        let hit = try await server.get(path, headers: [("If-None-Match", others + ", " + etag)])
        #expect(hit.status == 304 && hit.header("ETag") == etag)
        let gzipTag = String(etag.dropLast()) + "-gzip\""
        let gzip = try await server.get(path, headers: [("If-None-Match", others + ", " + gzipTag), ("Accept-Encoding", "gzip")])
        #expect(gzip.status == 304 && gzip.header("ETag") == gzipTag)
        let split = try await server.get(path, headers: [("If-None-Match", others), ("If-None-Match", etag)])
        #expect(split.status == 304)
        let miss = try await server.get(path, headers: [("If-None-Match", others)])
        #expect(miss.status == 200 && miss.header("ETag") == etag && !miss.body.isEmpty)
        let unknown = try await server.get("/v1/environments/nowhere/document", headers: [("If-None-Match", others)])
        #expect(unknown.status == 404)
    }

    @Test func gzipIsServedToClientsThatAcceptItWithItsOwnTag() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let path = "/v1/environments/production/document"
        let plain = try await server.get(path)
        let etag = try #require(plain.header("ETag"))
        #expect(plain.header("Content-Encoding") == nil)
        #expect(plain.header("Vary") == "Authorization, Accept-Encoding")
        for accept in ["gzip", "gzip, deflate, br", "br;q=1.0, GZIP;q=0.5", "*", "x-gzip"] {
            let response = try await server.get(path, headers: [("Accept-Encoding", accept)])
            #expect(response.status == 200, "\(accept)")
            #expect(response.header("Content-Encoding") == "gzip", "\(accept)")
            #expect(response.header("Vary") == "Authorization, Accept-Encoding")
            // Another representation, another strong tag (RFC 9110 §8.8.3), of the same version.
            #expect(response.header("ETag") == String(etag.dropLast()) + "-gzip\"", "\(accept)")
            #expect(response.body.count < plain.body.count / 2, "\(response.body.count) of \(plain.body.count)")
            #expect(Gzip.decompress(response.body) == plain.body, "the same envelope, byte for byte")
        }
        for accept in ["identity", "gzip;q=0", "br", "*, gzip;q=0", "deflate;q=1, *;q=0", "gzip;q=x"] {
            let response = try await server.get(path, headers: [("Accept-Encoding", accept)])
            #expect(response.header("Content-Encoding") == nil, "\(accept)")
            #expect(response.body == plain.body, "\(accept)")
            #expect(response.header("ETag") == etag, "\(accept)")
        }
    }

    @Test func eitherTagOfTheCurrentVersionGives304NamingTheAskedCoding() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let path = "/v1/environments/production/document"
        let etag = try await server.etag()
        let gzipTag = try #require(try await server.get(path, headers: [("Accept-Encoding", "gzip")]).header("ETag"))
        #expect(gzipTag != etag)
        for tag in [etag, gzipTag, "\"x\", W/\(gzipTag)"] {
            let gzipped = try await server.get(path, headers: [("If-None-Match", tag), ("Accept-Encoding", "gzip")])
            #expect(gzipped.status == 304, "\(tag)")
            #expect(gzipped.header("ETag") == gzipTag)
            #expect(gzipped.header("Vary") == "Authorization, Accept-Encoding")
            let plain = try await server.get(path, headers: [("If-None-Match", tag)])
            #expect(plain.status == 304, "\(tag)")
            #expect(plain.header("ETag") == etag)
        }
        // A gzip tag of another version is not this one's.
        let stale = try await server.get(path, headers: [("If-None-Match", "\"1-0000000000000000-gzip\""), ("Accept-Encoding", "gzip")])
        #expect(stale.status == 200)
    }

    @Test func headAnswersWithoutBody() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let response = try await RawHTTP.request(port: server.port, method: "HEAD", path: "/v1/environments/staging/document")
        #expect(response.status == 200)
        #expect(response.body.isEmpty)
        #expect(Int(response.header("Content-Length") ?? "") ?? 0 > 100)
    }

    @Test func unknownEnvironmentIs404ListingTheKnownOnes() async throws {
        let server = try TestServer()
        defer { server.stop() }
        for path in ["/v1/environments/prod/document", "/v1/environments/prod/versions", "/v1/environments/prod/versions/1"] {
            let response = try await server.get(path)
            #expect(response.status == 404)
            #expect(try response.errorCode() == "unknown_environment")
            #expect(try response.json()["error"]?["known"] == ["production", "staging"])
        }
        let list = try await server.get("/v1/environments").json()
        #expect(list["environments"]?.arrayValue?.count == 2)
    }

    @Test func historyPagesNewestFirstWithNextLinks() async throws {
        let server = try TestServer()
        defer { server.stop() }
        for value in [true, false, true, false] {
            let response = try await server.write("PUT", "/v1/environments/staging/flags/premiumFeaturesLocked", json: "\(value)")
            #expect(response.status == 200)
        }
        var numbers: [Int64] = []
        var path: String? = "/v1/environments/staging/versions?limit=2"
        var pages = 0
        while let next = path {
            let response = try await server.get(next)
            #expect(response.status == 200)
            let body = try response.json()
            numbers += body["versions"]?.arrayValue?.compactMap { $0["version"]?.integerValue } ?? []
            path = body["next"]?.stringValue
            if path != nil { #expect(response.header("Link")?.contains("rel=\"next\"") == true) }
            pages += 1
            #expect(pages < 10)
        }
        #expect(numbers == [5, 4, 3, 2, 1])
        let all = try await server.get("/v1/environments/staging/versions").json()
        #expect(all["versions"]?.arrayValue?.first?["author"] == "test-writer")
        #expect(all["versions"]?.arrayValue?.first?["message"] == "test change")
        #expect(all["next"] == .null)
        #expect(try await server.get("/v1/environments/staging/versions?limit=0").status == 400)
        #expect(try await server.get("/v1/environments/staging/versions?limit=abc").status == 400)
        #expect(try await server.get("/v1/environments/staging/versions?before=-1").status == 400)
    }

    @Test func oneVersionHasMetadataAndItsDocument() async throws {
        let server = try TestServer()
        defer { server.stop() }
        _ = try await server.write("PUT", "/v1/environments/production/flags/monetizationEnabled", json: "false")
        let old = try await server.get("/v1/environments/production/versions/1")
        #expect(old.status == 200)
        #expect(old.header("Cache-Control")?.contains("immutable") == true)
        let body = try old.json()
        #expect(body["version"] == 1)
        #expect(try FlagDocument(validating: #require(body["document"])) == FlagDocument.decode(TestServer.flagFile("production")))
        let current = try await server.get("/v1/environments/production/versions/2").json()
        #expect(current["document"]?["flags"]?["monetizationEnabled"]?["default"] == false)
        #expect(try await server.get("/v1/environments/production/versions/3").errorCode() == "version_not_found")
        #expect(try await server.get("/v1/environments/production/versions/3").status == 404)
        #expect(try await server.get("/v1/environments/production/versions/abc").status == 400)
        #expect(try await server.get("/v1/environments/production/versions/0").status == 400)
    }

    @Test func readTokenRequiredWhenConfigured() async throws {
        let server = try TestServer(options: FlagService.Options(requireReadToken: true))
        defer { server.stop() }
        let anonymous = try await server.get("/v1/environments/production/document")
        #expect(anonymous.status == 401)
        #expect(anonymous.header("WWW-Authenticate")?.hasPrefix("Bearer") == true)
        #expect(try await server.get("/v1/environments/production/document",
                               headers: [("Authorization", "Bearer sfl_wrong")]).status == 401)
        for token in [server.readerToken, server.writerToken, server.adminToken] {
            #expect(try await server.get("/v1/environments/production/document",
                                   headers: [("Authorization", "Bearer \(token)")]).status == 200)
        }
        #expect(try await server.get("/v1/environments/production/versions").status == 401)
        #expect(try await server.get("/healthz").status == 200)
    }

    @Test func aScopedTokenListsOnlyItsEnvironmentsWhenReadsNeedAToken() async throws {
        let server = try TestServer(options: FlagService.Options(requireReadToken: true))
        defer { server.stop() }
        let scoped = try server.token("staging-reader", .reader, environments: ["staging"])
        let list = try await server.get("/v1/environments", headers: [("Authorization", "Bearer \(scoped)")]).json()
        #expect(list["environments"]?.arrayValue?.map { $0["name"] } == ["staging"])
        let all = try await server.get("/v1/environments", headers: [("Authorization", "Bearer \(server.readerToken)")]).json()
        #expect(all["environments"]?.arrayValue?.map { $0["name"] } == ["production", "staging"])
        let production = try await server.get("/v1/environments/production/document", headers: [("Authorization", "Bearer \(scoped)")])
        #expect(production.status == 403)
        #expect(try production.errorCode() == "environment_not_allowed")
    }

    @Test func whileReadsArePublicTheListIsComplete() async throws {
        // Every document is anyone's then: no token is looked at, so a scoped one changes nothing (docs/api.md).
        let server = try TestServer()
        defer { server.stop() }
        let scoped = try server.token("staging-reader", .reader, environments: ["staging"])
        let list = try await server.get("/v1/environments", headers: [("Authorization", "Bearer \(scoped)")]).json()
        #expect(list["environments"]?.arrayValue?.map { $0["name"] } == ["production", "staging"])
    }
}
