import CommandLineKit
import FlagKit
import Foundation

/// `flagctl outcomes [--from TIME] [--to TIME] [--bucket hour|day] [--product ID] [--environment ENV] [--json]`: what the App Store
/// notifications the server received add up to (`GET /v1/appstore/outcomes`, an unscoped writer token): one row per
/// hour or day, a column per metric that is not zero (and the main ones always), a totals row.
public struct OutcomesCommand: Command {
    /// Name, abstract, options.
    public static let configuration = CommandConfiguration(
        name: "outcomes",
        abstract: "Show what App Store notifications say happened: starts, conversions, renewals, refunds, active subscribers.",
        discussion: """
        One row per UTC hour or day (--bucket, default day), then the totals (active: at the end of the range).
        Columns: started, introStarts, introConversions, renewals, autoRenewOff, refunds, billingProblems, expired and
        active always, any other metric that is not zero. docs/appstore.md says what each counts.
        TIME is RFC 3339 with an offset (2026-12-01T00:00:00Z), a date (2026-12-01, midnight UTC) or a span back from now
        (24h, 7d). Default: the 7 days before now. --json prints the server's answer as it is.
        Needs a writer token for every environment in FLAGCTL_TOKEN.
        Exit status: 0 shown, 2 the server cannot be reached or refuses.
        """,
        options: [fromOption, toOption, bucketOption, productOption, environmentOption, jsonSwitch])

    static let fromOption = Option("from", valueName: "time", help: "The range's start (default: 7 days before --to).") {
        text throws(UsageError) in try OutcomesCommand.time(text, option: "from", now: Int64(Date().timeIntervalSince1970 * 1000))
    }
    static let toOption = Option("to", valueName: "time", help: "The range's end (default: now).") { text throws(UsageError) in
        try OutcomesCommand.time(text, option: "to", now: Int64(Date().timeIntervalSince1970 * 1000))
    }
    static let bucketOption = Option("bucket", valueName: "hour|day", help: "One row per UTC hour or day (default: day).") {
        text throws(UsageError) in
        guard text == "hour" || text == "day" else { throw UsageError("--bucket '\(text)' must be hour or day") }
        return text
    }
    static let productOption = Option("product", valueName: "id", help: "Only this product's notifications.") { text throws(UsageError) in
        guard !text.isEmpty, text.utf8.count <= 200 else { throw UsageError("--product must be 1 to 200 bytes") }
        return text
    }
    static let environmentOption = Option("environment", valueName: "Production|Sandbox|Xcode|LocalTesting",
                                          help: "Only this App Store environment's notifications (default: all).") { text throws(UsageError) in
        guard ["Production", "Sandbox", "Xcode", "LocalTesting"].contains(text) else {
            throw UsageError("--environment '\(text)' must be Production, Sandbox, Xcode or LocalTesting")
        }
        return text
    }
    static let jsonSwitch = Switch("json", help: "Print the server's JSON as it is.")

    /// The metrics shown whatever their counts, in the server's order.
    static let alwaysShown: Set<String> = ["started", "introStarts", "introConversions", "renewals", "autoRenewOff", "refunds",
                                           "billingProblems", "expired", "active"]

    /// The range's start and end (ms since 1970 UTC); nil: the server's default.
    public let from: Int64?
    public let to: Int64?
    /// `hour` or `day`; nil: the server's default (day).
    public let bucket: String?
    /// Only this product.
    public let product: String?
    /// Only this App Store environment.
    public let environment: String?
    /// Print the server's JSON.
    public let json: Bool

    /// From the parsed command line.
    public init(parsed: ParsedArguments) throws(UsageError) {
        from = try parsed.value(Self.fromOption)
        to = try parsed.value(Self.toOption)
        if let from, let to, from >= to { throw UsageError("--from must be before --to") }
        bucket = try parsed.value(Self.bucketOption)
        product = try parsed.value(Self.productOption)
        environment = try parsed.value(Self.environmentOption)
        json = parsed.isSet(Self.jsonSwitch)
    }

    /// The query string of `GET /v1/appstore/outcomes`.
    var query: String {
        var pairs: [(String, String)] = []
        if let from { pairs.append(("from", RFC3339.string(milliseconds: from))) }
        if let to { pairs.append(("to", RFC3339.string(milliseconds: to))) }
        if let bucket { pairs.append(("bucket", bucket)) }
        if let product { pairs.append(("product", product)) }
        if let environment { pairs.append(("environment", environment)) }
        return ServerClient.queryString(pairs)
    }

    /// Asks the server and prints the table (or its JSON).
    public func run(_ context: RunContext) -> Int32 {
        ServerCommandSupport.run(context) { client throws(CommandFailure) in
            let answer = try ServerCommandSupport.call { () throws(ServerError) in try client.outcomes(query: query) }
            if json {
                context.stdout.write(String(decoding: answer.body, as: UTF8.self))
            } else {
                context.stdout.write(Self.table(answer.report))
            }
            return ExitStatus.success
        }
    }

    /// `TIME` as milliseconds since 1970: a span back from `now` or RFC 3339 (as `flagctl audit --since`), or a date
    /// (midnight UTC).
    static func time(_ text: String, option: String, now: Int64) throws(UsageError) -> Int64 {
        if text.utf8.count == 10, let midnight = try? RFC3339.milliseconds(parsing: text + "T00:00:00Z") { return midnight }
        do {
            return try AuditCommand.time(text, now: now)
        } catch {
            throw UsageError("--\(option) '\(text)' is not an RFC 3339 time (2026-12-01T00:00:00Z), a date (2026-12-01) or a span like 24h, 7d")
        }
    }

    /// One row per bucket and a totals row; a column per metric that is always shown or not zero somewhere.
    static func table(_ report: [String: JSONValue]) -> String {
        let metrics = (report["metrics"]?.arrayValue ?? []).compactMap(\.stringValue)
        let buckets = (report["buckets"]?.arrayValue ?? []).compactMap(\.stringValue)
        let series = report["series"]?.arrayValue ?? []
        let totals = report["totals"] ?? .object([:])
        func count(_ counts: JSONValue, _ metric: String) -> Int64 { counts[metric]?.integerValue ?? 0 }
        let shown = metrics.filter { metric in alwaysShown.contains(metric) || series.contains { count($0, metric) != 0 } || count(totals, metric) != 0 }
        let hourly = report["bucket"]?.stringValue == "hour"
        var rows: [[String]] = []
        for (index, start) in buckets.enumerated() {
            let counts = index < series.count ? series[index] : .object([:])
            rows.append([label(start, hourly: hourly)] + shown.map { String(count(counts, $0)) })
        }
        rows.append(["total"] + shown.map { String(count(totals, $0)) })
        return TextTable.render(header: [hourly ? "HOUR" : "DAY"] + shown, rows: rows)
    }

    /// `2026-12-01` for a day, `2026-12-01 13:00` for an hour (UTC both).
    static func label(_ start: String, hourly: Bool) -> String {
        let date = String(start.prefix(10))
        guard hourly, start.count >= 16 else { return date }
        return date + " " + String(start.dropFirst(11).prefix(5))
    }
}

/// What the App Store notifications add up to (`GET /v1/appstore/outcomes`, an unscoped writer token).
extension ServerClient {
    /// The report for `query` (`from=...&to=...&bucket=...&product=...`): as parsed, and the body as sent.
    public func outcomes(query: String) throws(ServerError) -> (report: [String: JSONValue], body: [UInt8]) {
        let url = try url(["v1", "appstore", "outcomes"], query: query.isEmpty ? nil : query)
        let response = try successful(.get, url)
        return (try object(response, from: url), [UInt8](response.body))
    }
}
