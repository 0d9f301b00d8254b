import FlagServiceTestSupport
import Foundation
import Synchronization
import TestSupport

/// A reader on a thread of its own: GETs production's document from one node every few milliseconds (with the last
/// ETag, so mostly 304s) until `stop()`, and keeps every answer that was not 200 or 304.
final class DocumentReader: Sendable {
    /// An answer that was not 200 or 304 (status 0: none, the connection failed).
    struct Failure: Sendable {
        let status: Int
        let detail: String
        let at: ContinuousClock.Instant
    }

    let node: Int
    let failures = Mutex<[Failure]>([])
    /// When each 200 or 304 came.
    let answered = Mutex<[ContinuousClock.Instant]>([])
    private let load = LoadThread()

    init(node: Int, port: Int, pause: Duration = .milliseconds(10)) {
        self.node = node
        let etag = Mutex<String?>(nil)
        load.start(pause: pause) { [self] in
                do {
                    let response = try RawHTTP.blockingRequest(port: port, method: "GET", path: "/v1/environments/production/document",
                                                               headers: etag.withLock { $0 }.map { [("If-None-Match", $0)] } ?? [], timeoutSeconds: 5)
                    if response.status == 200 || response.status == 304 {
                        answered.withLock { $0.append(.now) }
                        if let tag = response.header("ETag") { etag.withLock { $0 = tag } }
                    } else {
                        failures.withLock { $0.append(Failure(status: response.status, detail: response.text, at: .now)) }
                    }
                } catch {
                    failures.withLock { $0.append(Failure(status: 0, detail: "\(error)", at: .now)) }
                }
                return true
        }
    }

    /// Stops after the request in flight; returns when the thread has.
    func stop() { load.stop() }

    /// The longest time between two answers (or from `from` to the first, and from the last to `to`) within the window.
    func longestSilence(from: ContinuousClock.Instant, to: ContinuousClock.Instant) -> Duration {
        let times = [from] + answered.withLock { $0.filter { $0 > from && $0 < to } } + [to]
        return zip(times, times.dropFirst()).map { $1 - $0 }.max() ?? .zero
    }
}
