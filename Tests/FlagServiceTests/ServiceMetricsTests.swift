import FlagServiceTestSupport
import Testing
@testable import FlagService

/// Counters and the exposition text.
@Suite struct ServiceMetricsTests {
    @Test func histogramIsCumulativeAndCountsEveryStatus() {
        let metrics = ServiceMetrics()
        let route = metrics.route("GET", "/r")
        #expect(metrics.route("GET", "/r") === route)
        route.record(status: 200, nanoseconds: 50_000)        // 0.05 ms
        route.record(status: 200, nanoseconds: 2_000_000)     // 2 ms
        route.record(status: 404, nanoseconds: 10_000_000_000) // 10 s: past every bucket
        metrics.recordPublish(changed: true)
        metrics.recordPublish(changed: false)
        let text = metrics.render(snapshots: [:], server: nil)
        #expect(text.contains(#"flagserver_requests_total{method="GET",route="/r",status="200"} 2"#))
        #expect(text.contains(#"flagserver_requests_total{method="GET",route="/r",status="404"} 1"#))
        #expect(text.contains(#"flagserver_request_duration_seconds_bucket{method="GET",route="/r",le="0.0001"} 1"#))
        #expect(text.contains(#"flagserver_request_duration_seconds_bucket{method="GET",route="/r",le="0.0025"} 2"#))
        #expect(text.contains(#"flagserver_request_duration_seconds_bucket{method="GET",route="/r",le="2.5"} 2"#))
        #expect(text.contains(#"flagserver_request_duration_seconds_bucket{method="GET",route="/r",le="+Inf"} 3"#))
        #expect(text.contains(#"flagserver_request_duration_seconds_count{method="GET",route="/r"} 3"#))
        #expect(text.contains(#"flagserver_publishes_total{outcome="published"} 1"#))
        #expect(text.contains(#"flagserver_publishes_total{outcome="unchanged"} 1"#))
        #expect(!text.contains("flagserver_open_connections"))
    }

    /// The bucket is found with integers; it must be the first bound (in seconds) the duration does not exceed.
    @Test func bucketsByNanosecondsAgreeWithTheBoundsInSeconds() {
        var values: [UInt64] = [0, 1, 99_999, 100_000, 100_001, 2_500_000_000, 2_500_000_001, .max]
        for bound in ServiceMetrics.latencyBuckets {
            let ns = UInt64((bound * 1e9).rounded())
            values += [ns - 1, ns, ns + 1]
        }
        for ns in values {
            let seconds = Double(ns) / 1e9
            #expect(ServiceMetrics.bucket(nanoseconds: ns) == ServiceMetrics.latencyBuckets.firstIndex { seconds <= $0 }, "\(ns)")
        }
    }

    /// Responses counted by different event loops (each its own stripe, loop numbers past the stripes wrap) add up.
    @Test func countsOfEveryLoopAddUp() {
        let metrics = ServiceMetrics()
        let route = metrics.route("GET", "/r")
        for loop in 0..<9 { route.record(status: 304, nanoseconds: 1_000, loop: loop) }
        route.record(status: 200, nanoseconds: 3_000_000_000, loop: 3)
        let text = metrics.render(snapshots: [:], server: nil)
        #expect(text.contains(#"flagserver_requests_total{method="GET",route="/r",status="304"} 9"#))
        #expect(text.contains(#"flagserver_request_duration_seconds_bucket{method="GET",route="/r",le="0.0001"} 9"#))
        #expect(text.contains(#"flagserver_request_duration_seconds_count{method="GET",route="/r"} 10"#))
        #expect(text.contains(#"flagserver_request_duration_seconds_sum{method="GET",route="/r"} 3.000009"#))
    }
}
