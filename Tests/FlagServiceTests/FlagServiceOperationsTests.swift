import FlagService
import FlagServiceTestSupport
import FlagStore
import Foundation
import Testing

/// `/healthz`, `/readyz`, `/metrics`, logs.
@Suite struct FlagServiceOperationsTests {
    @Test func healthAndReadiness() async throws {
        let server = try TestServer()
        defer { server.stop() }
        #expect(try await server.get("/healthz").json()["status"] == "ok")
        let ready = try await server.get("/readyz")
        #expect(ready.status == 200)
        #expect(try ready.json()["versions"]?["production"] == 1)
    }

    @Test func readinessFailsWhenTheStoreIsClosed() async throws {
        let server = try TestServer()
        defer { server.stop() }
        server.store.close()
        let ready = try await server.get("/readyz")
        #expect(ready.status == 503)
        #expect(try ready.errorCode() == "not_ready")
        #expect(try await server.get("/healthz").status == 200)
    }

    @Test func readinessReportsWritesThatCannotCommitWhileReadsAreServed() async throws {
        let server = try TestServer(busyTimeout: .milliseconds(200))
        defer { server.stop() }
        #expect(try await server.get("/readyz").json()["writes"] == "ok")
        // Another process holds the write lock past the busy timeout: the commit fails.
        let holder = try Database(path: server.databasePath)
        try holder.execute("BEGIN IMMEDIATE")
        let flip = try await server.write("PUT", "/v1/environments/production/flags/monetizationEnabled", json: "false")
        #expect(flip.status == 503)
        let degraded = try await server.get("/readyz")
        #expect(degraded.status == 503)
        let body = try degraded.json()
        #expect(body["status"] == "degraded")
        #expect(body["reads"] == "ok")
        #expect(body["writes"] == "failing")
        #expect(body["writeError"]?.stringValue?.contains("busy") == true, "\(body)")
        #expect(body["error"]?["code"] == "writes_failing")
        #expect(body["versions"]?["production"] == 1)
        #expect(try await server.get("/v1/environments/production/document").status == 200)
        try holder.execute("ROLLBACK")
        holder.close()
        // The next commit that succeeds clears it.
        #expect(try await server.write("PUT", "/v1/environments/production/flags/monetizationEnabled", json: "false").status == 200)
        let ready = try await server.get("/readyz")
        #expect(ready.status == 200)
        #expect(try ready.json()["status"] == "ready")
    }

    @Test func metricsInPrometheusTextFormat() async throws {
        let server = try TestServer()
        defer { server.stop() }
        _ = try await server.get("/v1/environments/production/document")
        _ = try await server.get("/v1/environments/production/document", headers: [("If-None-Match", try await server.etag())])
        _ = try await server.write("PUT", "/v1/environments/staging/flags/monetizationEnabled", json: "false")
        let response = try await server.get("/metrics")
        #expect(response.status == 200)
        #expect(response.header("Content-Type")?.hasPrefix("text/plain; version=0.0.4") == true)
        let text = response.text
        #expect(text.contains(#"flagserver_requests_total{method="GET",route="/v1/environments/{env}/document",status="304"} 1"#))
        #expect(text.contains(#"flagserver_requests_total{method="PUT",route="/v1/environments/{env}/flags/{key}",status="200"} 1"#))
        #expect(text.contains(#"flagserver_request_duration_seconds_bucket{method="GET",route="/v1/environments/{env}/document",le="+Inf"} 3"#))
        #expect(text.contains(#"flagserver_document_version{environment="staging"} 2"#))
        #expect(text.contains(#"flagserver_document_version{environment="production"} 1"#))
        #expect(text.contains(#"flagserver_publishes_total{outcome="published"} 1"#))
        // This request's connection at least (earlier ones may still be closing).
        let open = text.split(separator: "\n").first { $0.hasPrefix("flagserver_open_connections ") }
        #expect((open?.split(separator: " ").last).flatMap { Int($0) } ?? 0 >= 1)
        // Present from the start, as every counter (its value depends on which CPU the test's requests came from).
        #expect(text.contains("\nflagserver_connections_moved_total "))
        // Every sample line is `name{labels} value` with a numeric value.
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            #expect(Double(line.split(separator: " ").last ?? "") != nil, "\(line)")
        }
    }

    @Test func publishesAreLoggedAsKeyValueLines() async throws {
        let server = try TestServer()
        defer { server.stop() }
        _ = try await server.write("PUT", "/v1/environments/staging/flags/monetizationEnabled", json: "false", message: "turn off")
        let line = try #require(server.logLines.all.first { $0.contains("event=publish ") })
        #expect(line.hasPrefix("ts="))
        #expect(line.contains("level=info"))
        #expect(line.contains("env=staging version=2 author=test-writer"))
        #expect(line.contains(#"message="turn off""#))
    }
}
