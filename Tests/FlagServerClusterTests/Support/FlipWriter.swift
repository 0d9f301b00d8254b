import FlagKit
import FlagServiceTestSupport
import Foundation
import Synchronization
import TestSupport

/// A client that keeps flipping: on a thread of its own, PUTs integer flag `key` (a full definition, so the flag needs
/// no set-up) with 1, 2, 3, ... through the nodes at `ports` in turn, one request at a time, until `stop()`. Every answer
/// is kept: a 200 is an acknowledged version (its number, content hash and value), anything else an attempt that may
/// or may not have been published (a 5xx, a lost connection) or was refused (4xx: then it must never be).
final class FlipWriter: Sendable {
    /// A version the server acknowledged (200 with `changed`).
    struct Acknowledged: Sendable {
        let value: Int64
        let version: Int
        let contentHash: String
        let node: Int
        let at: ContinuousClock.Instant
    }

    /// Any other answer: its status (0: no answer, the connection failed) and error code.
    struct Unacknowledged: Sendable {
        let value: Int64
        let status: Int
        let code: String?
        let node: Int
        let at: ContinuousClock.Instant
        /// `503 busy`: a write without `If-Match` that other nodes beat through every rebase; nothing was written.
        var isBusy: Bool { status == 503 && code == "busy" }
    }

    let key: String
    let acknowledged = Mutex<[Acknowledged]>([])
    let unacknowledged = Mutex<[Unacknowledged]>([])
    private let load = LoadThread()

    /// Starts flipping `key` through `ports` (node numbers are indexes into `nodes`) with writer token `token`; `pause`
    /// between two requests; a writer whose node refuses connections stops when `stopWhenUnreachable` (its node died).
    init(key: String, ports: [Int], nodes: [Int]? = nil, token: String, pause: Duration = .milliseconds(5),
         stopWhenUnreachable: Bool = false) {
        self.key = key
        let nodes = nodes ?? Array(ports.indices)
        let counter = Atomic<Int64>(0)
        load.start(pause: pause) { [self] in
                let value = counter.wrappingAdd(1, ordering: .relaxed).newValue
                let turn = Int(value) % ports.count
                let body = Array(#"{"type": "integer", "default": \#(value)}"#.utf8)
                do {
                    let response = try RawHTTP.blockingRequest(
                        port: ports[turn], method: "PUT", path: "/v1/environments/production/flags/\(key)",
                        headers: [("Authorization", "Bearer \(token)"), ("Content-Type", "application/json"),
                                  ("X-Change-Message", "flip \(value)")], body: body)
                    let json = try? response.json()
                    if response.status == 200, json?["changed"] == true, let version = json?["version"]?.integerValue,
                       let hash = json?["contentHash"]?.stringValue {
                        acknowledged.withLock { $0.append(Acknowledged(value: value, version: Int(version), contentHash: hash,
                                                                       node: nodes[turn], at: .now)) }
                    } else {
                        unacknowledged.withLock { $0.append(Unacknowledged(value: value, status: response.status,
                                                                           code: try? response.errorCode(), node: nodes[turn], at: .now)) }
                    }
                } catch {
                    unacknowledged.withLock { $0.append(Unacknowledged(value: value, status: 0, code: "\(error)", node: nodes[turn], at: .now)) }
                    if stopWhenUnreachable { return false }
                }
                return true
        }
    }

    /// Stops after the request in flight; returns when the thread has.
    func stop() { load.stop() }

    /// How many versions were acknowledged, and after `instant` only.
    func acknowledgedCount(after instant: ContinuousClock.Instant? = nil) -> Int {
        acknowledged.withLock { all in instant.map { at in all.filter { $0.at > at }.count } ?? all.count }
    }

    /// The values refused for good (4xx): none of them may ever be in a version.
    var refusedValues: Set<Int64> {
        // 4xx, and `503 busy` (a bare write that lost every rebase to other nodes): both promise nothing was written.
        Set(unacknowledged.withLock { $0.filter { (400..<500).contains($0.status) || $0.isBusy }.map(\.value) })
    }
}
