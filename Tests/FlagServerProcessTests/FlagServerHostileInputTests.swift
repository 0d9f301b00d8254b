import FlagKit
import FlagServiceTestSupport
import FlagStore
import Foundation
import Glibc
import RawHTTPClient
import TestSupport
import Testing

/// The real `flagserver` process against a hostile client, network or disk.
@Suite struct FlagServerHostileInputTests {
    static var flagsDirectory: String { repositoryRoot.appendingPathComponent("flags").path }

    /// A started server with a writer token (`secret`) and a reader token in a fresh directory.
    struct Running {
        let directory: String
        let server: FlagServerProcess
        let port: Int
        let secret: String
        let reader: String

        static func start(_ extra: [String] = []) async throws -> Running {
            let directory = try makeTemporaryDirectory()
            let store = try FlagStore.open(location: directory + "/flags.sqlite")
            let secret = try store.createToken(name: "ops", role: .writer).secret
            let reader = try store.createToken(name: "app", role: .reader).secret
            store.close()
            let server = try FlagServerProcess(["--port", "0", "--database", "flags.sqlite", "--flags-dir", flagsDirectory] + extra,
                                           directory: directory)
            let port = try await server.waitUntilReady()
            return Running(directory: directory, server: server, port: port, secret: secret, reader: reader)
        }

        /// The server's resident set in KiB (`VmRSS`).
        var residentKiB: Int {
            let status = (try? String(contentsOfFile: "/proc/\(server.process.processIdentifier)/status", encoding: .utf8)) ?? ""
            let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
            return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
        }

        func put(_ path: String, _ body: String) async throws -> RawHTTPResponse {
            try await RawHTTP.request(port: port, method: "PUT", path: path,
                                      headers: [("Authorization", "Bearer \(secret)"), ("Content-Type", "application/json"),
                                                ("X-Change-Message", "hardening")], body: Array(body.utf8))
        }

        func stop() {
            server.blockingStop()
            try? FileManager.default.removeItem(atPath: directory)
        }
    }

    @Test func aTypoInAFlipIsRefusedAndNothingIsPublished() async throws {
        let running = try await Running.start()
        defer { running.stop() }
        let typo = try await running.put("/v1/environments/production/flags/premiumFeaturesLokced", "true")
        #expect(typo.status == 422)
        #expect(try typo.json()["error"]?["code"] == "unknown_flag")
        #expect(try typo.json()["error"]?["closest"]?.arrayValue?.first == "premiumFeaturesLocked")
        let document = try await RawHTTP.request(port: running.port, method: "GET", path: "/v1/environments/production/document")
        #expect(try document.json()["version"] == 1)
        #expect(try document.json()["document"]?["flags"]?["premiumFeaturesLokced"] == nil)
        let created = try await running.put("/v1/environments/production/flags/brandNew", #"{"type": "boolean", "default": true}"#)
        #expect(created.status == 200)
    }

    /// `sqlite3 DATABASE SQL`, as an operator (or a broken disk) would change the file.
    static func sqlite(_ database: String, _ sql: String) throws {
        guard try SpawnedProcess.run("/usr/bin/sqlite3", [database, sql]) == 0 else { throw TestFailure("sqlite3 \(sql) failed") }
    }

    @Test func damagedContentIsNeverServedNorRolledBackTo() async throws {
        let running = try await Running.start()
        defer { running.stop() }
        #expect(try await running.put("/v1/environments/production/flags/showIntroFreeSubscriptionBanner", "false").status == 200)
        let database = running.directory + "/flags.sqlite"
        // Below the trigger that keeps versions immutable, as a broken disk or a hand edit would.
        try Self.sqlite(database, """
            DROP TRIGGER versions_no_update;
            UPDATE versions SET document = CAST(replace(CAST(document AS TEXT), '"monetizationEnabled"', '"monetizationEnabIed"') AS BLOB)
            WHERE number = 1 AND environment_id = (SELECT id FROM environments WHERE name = 'production')
            """)
        let old = try await RawHTTP.request(port: running.port, method: "GET", path: "/v1/environments/production/versions/1")
        #expect(old.status == 500)
        #expect(try old.errorCode() == "damaged_version")
        let rollback = try await RawHTTP.request(
            port: running.port, method: "POST", path: "/v1/environments/production/rollback",
            headers: [("Authorization", "Bearer \(running.secret)"), ("Content-Type", "application/json")],
            body: Array(#"{"version": 1, "message": "undo"}"#.utf8))
        #expect(rollback.status == 500)
        #expect(try rollback.errorCode() == "damaged_version")
        #expect(try rollback.json()["error"]?["message"]?.stringValue?.contains("version 1 of production") == true)
        let current = try await RawHTTP.request(port: running.port, method: "GET", path: "/v1/environments/production/document")
        #expect(try current.json()["version"] == 2)
        #expect(running.server.errors.contains("event=damaged_version"))
        let check = try await FlagServerProcess.run(["--database", "flags.sqlite", "check"], directory: running.directory)
        #expect(check.status != 0)
        #expect(check.stderr.contains("version 1 of production is damaged"), "\(check.stderr)")

        // Damage to the current version: the server refuses to start rather than serve it.
        running.server.blockingStop()
        try Self.sqlite(database, "UPDATE versions SET document = CAST(replace(CAST(document AS TEXT), 'false', 'true') AS BLOB) WHERE number = 2")
        let restart = try await FlagServerProcess.run(["--port", "0", "--database", "flags.sqlite"], directory: running.directory)
        #expect(restart.status == 1)
        #expect(restart.stderr.contains("is damaged"), "\(restart.stderr)")
        #expect(!restart.stdout.contains("listening"))
    }

    @Test func readinessSaysWhenWritesCannotCommit() async throws {
        let running = try await Running.start()
        defer { running.stop() }
        let ready = try await RawHTTP.request(port: running.port, method: "GET", path: "/readyz")
        #expect(ready.status == 200)
        #expect(try ready.json()["writes"] == "ok")
        // Another process holds the write lock past the server's busy timeout (5 s): the commit fails.
        let holder = try Database(path: running.directory + "/flags.sqlite")
        try holder.execute("BEGIN IMMEDIATE")
        let flip = try await running.put("/v1/environments/production/flags/showIntroFreeSubscriptionBanner", "false")
        #expect(flip.status == 503)
        let degraded = try await RawHTTP.request(port: running.port, method: "GET", path: "/readyz")
        #expect(degraded.status == 503)
        #expect(try degraded.json()["reads"] == "ok")
        #expect(try degraded.json()["writes"] == "failing")
        #expect(try degraded.errorCode() == "writes_failing")
        #expect(try await RawHTTP.request(port: running.port, method: "GET", path: "/v1/environments/production/document").status == 200)
        try holder.execute("ROLLBACK")
        holder.close()
        #expect(try await running.put("/v1/environments/production/flags/showIntroFreeSubscriptionBanner", "false").status == 200)
        #expect(try await RawHTTP.request(port: running.port, method: "GET", path: "/readyz").status == 200)
    }

    @Test func failedAuthenticationIsLoggedAndThrottled() async throws {
        let running = try await Running.start(["--auth-failure-limit", "2"])
        defer { running.stop() }
        for _ in 0..<2 {
            let guess = try await RawHTTP.request(
                port: running.port, method: "PUT", path: "/v1/environments/production/flags/monetizationEnabled",
                headers: [("Authorization", "Bearer sfl_guessed"), ("Content-Type", "application/json"), ("X-Change-Message", "x")],
                body: Array("false".utf8))
            #expect(guess.status == 401)
        }
        let throttled = try await RawHTTP.request(
            port: running.port, method: "PUT", path: "/v1/environments/production/flags/monetizationEnabled",
            headers: [("Authorization", "Bearer sfl_guessed"), ("Content-Type", "application/json"), ("X-Change-Message", "x")],
            body: Array("false".utf8))
        #expect(throttled.status == 429)
        #expect(throttled.header("Retry-After") != nil)
        #expect(try await running.put("/v1/environments/production/flags/showIntroFreeSubscriptionBanner", "false").status == 200,
                "the valid token is served")
        let log = running.server.errors
        #expect(log.contains("event=auth_failed client=127.0.0.1"))
        #expect(log.contains("path=/v1/environments/production/flags/monetizationEnabled"))
        #expect(!log.contains("sfl_guessed"))
    }

    @Test func theOFREPRateLimitKeysOnTheAddressNotOnInventedCredentials() async throws {
        let body = Array(#"{"context": {"targetingKey": "a"}}"#.utf8)
        let path = "/ofrep/v1/evaluate/flags/monetizationEnabled"
        /// How many of `requests` were served, and how many a bucket of `burst` refilled at 1/s could serve meanwhile.
        func served(port: Int, burst: Int, _ requests: [[(String, String)]]) async throws -> (served: Int, allowed: Int) {
            let start = Date()
            var served = 0
            for headers in requests {
                let response = try await RawHTTP.request(port: port, method: "POST", path: path, headers: headers, body: body)
                if response.status == 200 { served += 1 } else { #expect(response.status == 429) }
            }
            return (served, burst + Int(Date().timeIntervalSince(start).rounded(.up)))
        }
        let plain = try await Running.start(["--ofrep-rate-limit", "1", "--ofrep-burst", "1"])
        defer { plain.stop() }
        // Each request invents a credential or an address; keyed on them, every one got a fresh bucket.
        let invented = (0..<8).map { index -> [(String, String)] in
            switch index % 3 {
            case 0: [("Authorization", "Bearer invented-\(index)")]
            case 1: [("X-API-Key", "invented-\(index)")]
            default: [("X-Forwarded-For", "203.0.113.\(index)")]
            }
        }
        let plainResult = try await served(port: plain.port, burst: 1, invented)
        #expect(plainResult.served <= plainResult.allowed, "\(plainResult)")
        // Behind a trusted proxy the forwarded address is the client: two addresses, two buckets.
        let proxied = try await Running.start(["--ofrep-rate-limit", "1", "--ofrep-burst", "1", "--trusted-proxy", "127.0.0.1"])
        defer { proxied.stop() }
        let two = try await served(port: proxied.port, burst: 1, [[("X-Forwarded-For", "203.0.113.1")], [("X-Forwarded-For", "203.0.113.2")]])
        #expect(two.served == 2)
        let same = try await served(port: proxied.port, burst: 1, Array(repeating: [("X-Forwarded-For", "198.51.100.1, 203.0.113.1")], count: 6))
        #expect(same.served <= same.allowed, "\(same)")
        let refused = try await FlagServerProcess.run(["--trusted-proxy", "nginx.local"], directory: proxied.directory)
        #expect(refused.status == 64, "a usage error is EX_USAGE")
        #expect(refused.stderr.contains("--trusted-proxy"))
    }

    @Test func hostsChunkSizesTLSAndTheSeedMessage() async throws {
        let running = try await Running.start()
        defer { running.stop() }
        let badHost = try RawHTTP.parse(try await offPool {
            try RawHTTP.exchange(port: running.port, bytes: Array("GET /healthz HTTP/1.1\r\nHost: a b@c\r\n\r\n".utf8))
        }, method: "GET")
        #expect(badHost.status == 400)
        #expect(try badHost.errorCode() == "invalid_host")
        let head = "PUT /v1/environments/production/flags/showIntroFreeSubscriptionBanner HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            + "Authorization: Bearer \(running.secret)\r\nContent-Type: application/json\r\nX-Change-Message: zeros\r\n"
            + "Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n0000000000000005\r\nfalse\r\n0\r\n\r\n"
        let chunked = try RawHTTP.parse(try await offPool { try RawHTTP.exchange(port: running.port, bytes: Array(head.utf8)) },
                                        method: "PUT")
        #expect(chunked.status == 200, "\(chunked.text)")
        let start = Date()
        let hello = try await offPool {
            try RawHTTP.exchange(port: running.port, bytes: [0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xFC, 0x03, 0x03])
        }
        #expect(String(decoding: hello.prefix(12), as: UTF8.self) == "HTTP/1.1 400")
        // At once, not after the 10 s header timeout: that one answers 408, so the 400 above says the bytes were refused
        // for what they are. The time is only a safety net.
        #expect(Date().timeIntervalSince(start) < 15)
        let first = try await RawHTTP.request(port: running.port, method: "GET", path: "/v1/environments/production/versions/1")
        #expect(try first.json()["message"] == "initial import of production.json")
    }

    @Test func everyPipelinedGETIsAnsweredWhateverTheResponseSize() async throws {
        let running = try await Running.start()
        defer { running.stop() }
        let port = running.port
        try await offPool {
            let client = try RawClient(port: port)
            try client.send(String(repeating: "GET /v1/environments/production/document HTTP/1.1\r\nHost: h\r\n\r\n", count: 1000))
            for index in 0..<1000 {
                let response = try client.readResponse()
                guard response?.status == 200 else { throw TestFailure("answer \(index): \(String(describing: response?.status))") }
            }
        }
        // A ~700 KB document: five answers are 3.5 MB.
        let description = String(repeating: "x", count: 700 * 1024)
        let big = #"{"type": "boolean", "default": false, "description": "\#(description)"}"#
        #expect(try await running.put("/v1/environments/staging/flags/premiumFeaturesLocked", big).status == 200)
        try await offPool {
            let client = try RawClient(port: port)
            try client.send(String(repeating: "GET /v1/environments/staging/document HTTP/1.1\r\nHost: h\r\n\r\n", count: 5))
            for index in 0..<5 {
                let response = try client.readResponse()
                guard response?.status == 200, (response?.body.count ?? 0) > 700 * 1024 else {
                    throw TestFailure("large answer \(index): \(String(describing: response?.status))")
                }
            }
        }
    }

    @Test func aBodyWithoutATokenIsNeverRead() async throws {
        let running = try await Running.start()
        defer { running.stop() }
        let head = "PUT /v1/environments/production/document HTTP/1.1\r\nHost: h\r\nContent-Length: 1048576\r\n\r\n"
        let port = running.port
        let raw = try await offPool { try RawHTTP.exchange(port: port, bytes: Array(head.utf8), timeoutSeconds: 5) }
        #expect(try RawHTTP.parse(raw, method: "PUT").status == 401)
    }
}

