import Foundation
import Synchronization
import Testing
@testable import HTTPServer

/// Runs a real program and returns its exit status, standard output and standard error.
func run(_ executable: String, _ arguments: [String], stdin: Data? = nil) async throws -> (status: Int32, out: String, err: String) {
    try await offPool {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: executable)
        p.arguments = arguments
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        if let stdin {
            let input = Pipe()
            p.standardInput = input
            try p.run()
            input.fileHandleForWriting.write(stdin)
            try input.fileHandleForWriting.close()
        } else {
            p.standardInput = FileHandle.nullDevice
            try p.run()
        }
        let o = out.fileHandleForReading.readDataToEndOfFile()
        let e = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return (p.terminationStatus, String(decoding: o, as: UTF8.self), String(decoding: e, as: UTF8.self))
    }
}

func which(_ name: String) -> String? {
    for dir in ["/usr/bin", "/usr/local/bin", "/bin"] where FileManager.default.isExecutableFile(atPath: "\(dir)/\(name)") {
        return "\(dir)/\(name)"
    }
    return nil
}

func python3() -> String? {
    if let env = ProcessInfo.processInfo.environment["PATH"] {
        for dir in env.split(separator: ":") where FileManager.default.isExecutableFile(atPath: "\(dir)/python3") {
            return "\(dir)/python3"
        }
    }
    return which("python3")
}

@Suite struct InteropTests {
    static func routes(_ b: inout HTTPRouter.Builder) {
        b.add(.GET, "/doc") { _, _ in .json(#"{"ok":true}"#, headers: ["ETag": "\"7\""]) }
        b.add(.PUT, "/v1/environments/{env}/document") { req, ctx in
            .json(#"{"env":"\#(ctx.pathParameters["env"] ?? "")","bytes":\#(req.body.count),"expect":"\#(req.headers["Expect"] ?? "")"}"#)
        }
        b.add(.POST, "/echo") { req, _ in HTTPResponse(headers: ["Content-Type": "application/octet-stream"], body: req.body) }
    }

    @Test(.enabled(if: which("curl") != nil)) func curlPutOf2KiBUsesExpectContinue() async throws {
        try await withServer(routes: Self.routes) { _, port in
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("put-\(port).json")
            try Data(repeating: UInt8(ascii: "a"), count: 2048).write(to: file)
            defer { try? FileManager.default.removeItem(at: file) }
            let curl = try #require(which("curl"))
            let r = try await run(curl, ["-sS", "-v", "--max-time", "20", "-T", file.path, "http://127.0.0.1:\(port)/v1/environments/prod/document"])
            #expect(r.status == 0, "\(r.err)")
            #expect(r.out == #"{"env":"prod","bytes":2048,"expect":"100-continue"}"#)
            #expect(r.err.contains("Expect: 100-continue"))
            #expect(r.err.contains("HTTP/1.1 100 Continue"))
        }
    }

    @Test(.enabled(if: which("curl") != nil)) func curlReusesTheConnectionAndSeesHeaders() async throws {
        try await withServer(routes: Self.routes) { server, port in
            let curl = try #require(which("curl"))
            let url = "http://127.0.0.1:\(port)/doc"
            let r = try await run(curl, ["-sS", "-i", "--max-time", "20", url, url, "-I", "--next", url])
            #expect(r.status == 0, "\(r.err)")
            #expect(r.out.contains("ETag: \"7\""))
            #expect(r.out.contains("Content-Length: 11"))
            #expect(server.metrics().connectionsAccepted >= 1)
            let head = try await run(curl, ["-sS", "-I", "--max-time", "20", url])
            #expect(head.out.hasPrefix("HTTP/1.1 200 OK"))
            #expect(head.out.contains("Content-Length: 11"))
            let chunked = try await run(curl, ["-sS", "--max-time", "20", "-H", "Transfer-Encoding: chunked", "--data-binary", "@-", "http://127.0.0.1:\(port)/echo"], stdin: Data("streamed body".utf8))
            #expect(chunked.out == "streamed body")
        }
    }

    @Test(.enabled(if: python3() != nil)) func pythonHTTPClient() async throws {
        try await withServer(routes: Self.routes) { _, port in
            let script = """
                import http.client, sys
                c = http.client.HTTPConnection("127.0.0.1", \(port), timeout=20)
                out = []
                for i in range(3):
                    c.request("GET", "/doc")
                    r = c.getresponse()
                    out.append("%d %s %s" % (r.status, r.getheader("ETag"), r.read().decode()))
                c.request("POST", "/echo", body=b"x" * 5000)
                r = c.getresponse(); out.append("%d %d" % (r.status, len(r.read())))
                def gen():
                    yield b"ab"
                    yield b"cd"
                c.request("POST", "/echo", body=gen(), encode_chunked=True, headers={"Transfer-Encoding": "chunked"})
                r = c.getresponse(); out.append("%d %s" % (r.status, r.read().decode()))
                c.request("HEAD", "/doc")
                r = c.getresponse(); out.append("%d %s %r" % (r.status, r.getheader("Content-Length"), r.read()))
                c.request("GET", "/missing")
                r = c.getresponse(); out.append("%d %s" % (r.status, r.read().decode().strip()))
                print("\\n".join(out))
                """
            let r = try await run(try #require(python3()), ["-c", script])
            #expect(r.status == 0, "\(r.err)")
            let lines = r.out.split(separator: "\n").map(String.init)
            #expect(lines == [
                #"200 "7" {"ok":true}"#, #"200 "7" {"ok":true}"#, #"200 "7" {"ok":true}"#,
                "200 5000", "200 abcd", "200 11 b''",
                #"404 {"error":{"code":"not_found","message":"no resource at /missing"}}"#,
            ])
        }
    }

    @Test(.enabled(if: which("wrk") != nil)) func wrkShortRunHasNoErrors() async throws {
        try await withServer(routes: Self.routes) { server, port in
            let r = try await run(try #require(which("wrk")), ["-t1", "-c16", "-d1s", "--timeout", "5s", "http://127.0.0.1:\(port)/doc"])
            #expect(r.status == 0, "\(r.err)")
            #expect(!r.out.contains("Socket errors"), "\(r.out)")
            #expect(!r.out.contains("Non-2xx"), "\(r.out)")
            #expect((server.metrics().responsesByStatus[200] ?? 0) > 100)
        }
    }
}
