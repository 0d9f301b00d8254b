import CommandLineKit
import FlagKit
import Foundation

/// `flagctl experiment report ENV FLAG [--from] [--to] [--price PRODUCT=AMOUNT CUR]... [--storekit FILE] [--json]`: a
/// price or offer experiment read from the App Store notifications (`GET /v1/environments/{env}/experiments/{flag}`,
/// an unscoped writer token; docs/guards.md, "Running an experiment").
public enum ExperimentCommand {
    /// The `experiment` word and its commands.
    static var group: CommandGroup<RunContext> {
        CommandGroup(name: "experiment", abstract: "Read a price or offer experiment from the App Store notifications.",
                     subcommands: [.command(Report.self)])
    }

    /// `flagctl experiment report ENV FLAG ...`.
    public struct Report: Command {
        /// Name, abstract, options, arguments.
        public static let configuration = CommandConfiguration(
            name: "report", abstract: "Show an experiment's arms, the effect on started subscriptions and whether it is decided.",
            discussion: """
            The arms are FLAG's split in ENV's current document (each rule's slice of the buckets, the default's rest). Per arm:
            subscriptions started, intro starts, intro conversions, refunds and revenue at list price (paid periods minus
            refunds, at the list price); per pair of arms the ratio of started per share with its always-valid interval,
            "not decided yet" until the test decides; the sample-ratio check between arms with the same terms; what is
            not known (Apple's commission, taxes). List prices: --price, else --storekit's displayPrice (in its storefront's
            currency), else the most frequent price among the product's notifications.
            TIME as for 'flagctl outcomes'; --from defaults to the publication of the split.
            Needs a writer token for every environment in FLAGCTL_TOKEN.
            Exit status: 0 shown, 2 the server cannot be reached or refuses, or the StoreKit file cannot be read.
            """,
            options: [OutcomesCommand.fromOption, OutcomesCommand.toOption, priceOption, storeKitOption, appStoreEnvironmentOption,
                      OutcomesCommand.jsonSwitch],
            arguments: [ServerCommandSupport.environmentArgument, flagArgument])

        static let flagArgument = Argument<String>("flag", help: "The experiment's flag (paywallProduct).")
        static let priceOption = Option("price", valueName: "product=amount:cur", help: "A list price, 'symi_plus_monthly_499=4.99 EUR' or =4.99:EUR (repeat for several).",
                                        repeatable: true) { text throws(UsageError) in try Report.price(text) }
        static let storeKitOption = Option<String>("storekit", valueName: "file", help: "List prices from this StoreKit configuration's displayPrice.")
        static let appStoreEnvironmentOption = Option("appstore-environment", valueName: "Production|Sandbox|Xcode|LocalTesting",
                                                      help: "Whose notifications (default: Production).") { text throws(UsageError) in
            guard ["Production", "Sandbox", "Xcode", "LocalTesting"].contains(text) else {
                throw UsageError("--appstore-environment '\(text)' must be Production, Sandbox, Xcode or LocalTesting")
            }
            return text
        }

        /// The environment and the flag.
        public let environment: String
        public let flag: String
        /// The range (ms since 1970); nil: the server's default.
        public let from: Int64?
        public let to: Int64?
        /// `PRODUCT:AMOUNT:CUR` per product given with --price.
        public let prices: [(product: String, price: String)]
        /// The StoreKit file, if any.
        public let storeKitFile: String?
        /// Whose notifications.
        public let appStoreEnvironment: String?
        /// Print the server's JSON.
        public let json: Bool

        /// From the parsed command line.
        public init(parsed: ParsedArguments) throws(UsageError) {
            environment = try parsed.required(ServerCommandSupport.environmentArgument)
            flag = try parsed.required(Self.flagArgument)
            from = try parsed.value(OutcomesCommand.fromOption)
            to = try parsed.value(OutcomesCommand.toOption)
            if let from, let to, from >= to { throw UsageError("--from must be before --to") }
            prices = try parsed.values(Self.priceOption)
            var seen: Set<String> = []
            for price in prices where !seen.insert(price.product).inserted {
                throw UsageError("--price is given twice for \(price.product)")
            }
            storeKitFile = try parsed.value(Self.storeKitOption)
            appStoreEnvironment = try parsed.value(Self.appStoreEnvironmentOption)
            json = parsed.isSet(OutcomesCommand.jsonSwitch)
        }

        /// `PRODUCT=AMOUNT CUR` (or `PRODUCT=AMOUNT:CUR`) as the server's `PRODUCT:AMOUNT:CUR`.
        static func price(_ text: String) throws(UsageError) -> (product: String, price: String) {
            let usage = UsageError("--price '\(text)' must be PRODUCT=AMOUNT CUR, e.g. 'symi_plus_monthly_499=4.99 EUR'")
            guard let equals = text.firstIndex(of: "=") else { throw usage }
            let product = String(text[..<equals])
            let rest = text[text.index(after: equals)...].split(whereSeparator: { $0 == " " || $0 == ":" })
            guard !product.isEmpty, !product.contains(":"), rest.count == 2, let amount = Double(rest[0]), amount >= 0,
                  rest[0].allSatisfy({ ("0"..."9").contains($0) || $0 == "." }),
                  rest[1].count == 3, rest[1].allSatisfy({ ("A"..."Z").contains($0) }) else { throw usage }
            return (product, "\(product):\(rest[0]):\(rest[1])")
        }

        /// The query: range, environment, and a price per product (--price first, then the StoreKit file's).
        func query(storeKit: StoreKitConfiguration?, currency: String?) -> String {
            var pairs: [(String, String)] = []
            if let from { pairs.append(("from", RFC3339.string(milliseconds: from))) }
            if let to { pairs.append(("to", RFC3339.string(milliseconds: to))) }
            if let appStoreEnvironment { pairs.append(("appStoreEnvironment", appStoreEnvironment)) }
            var priced = Set(prices.map(\.product))
            pairs += prices.map { ("price", $0.price) }
            if let storeKit, let currency {
                for subscription in storeKit.subscriptions where !priced.contains(subscription.productId) {
                    guard let display = subscription.displayPrice,
                          let price = try? Self.price("\(subscription.productId)=\(display) \(currency)") else { continue }
                    priced.insert(subscription.productId)
                    pairs.append(("price", price.price))
                }
            }
            return ServerClient.queryString(pairs)
        }

        /// The currency of a StoreKit file's storefront (the ISO 3166 alpha-3 code Xcode writes), or nil.
        static func currency(_ storefront: String?) -> String? {
            let euro: Set<String> = ["DEU", "AUT", "FRA", "ITA", "ESP", "NLD", "BEL", "IRL", "FIN", "PRT", "GRC", "LUX", "SVK", "SVN",
                                     "EST", "LVA", "LTU", "MLT", "CYP", "HRV"]
            let others = ["USA": "USD", "GBR": "GBP", "CHE": "CHF", "CAN": "CAD", "AUS": "AUD", "JPN": "JPY", "SWE": "SEK",
                          "NOR": "NOK", "DNK": "DKK", "POL": "PLN"]
            guard let storefront else { return nil }
            return euro.contains(storefront) ? "EUR" : others[storefront]
        }

        /// Asks the server and prints the report (or its JSON).
        public func run(_ context: RunContext) -> Int32 {
            var storeKit: StoreKitConfiguration?
            var currency: String?
            if let storeKitFile {
                storeKit = StoreKitConfiguration.load(storeKitFile, context)
                guard storeKit != nil else { return ExitStatus.trouble }
                currency = Self.currency(storeKit?.storefront)
                guard currency != nil else {
                    context.error("\(storeKitFile): its storefront (\(storeKit?.storefront ?? "none")) has no known currency; give --price")
                    return ExitStatus.trouble
                }
            }
            return ServerCommandSupport.run(context) { client throws(CommandFailure) in
                let query = query(storeKit: storeKit, currency: currency)
                let answer = try ServerCommandSupport.call { () throws(ServerError) in
                    try client.experiment(environment: environment, flag: flag, query: query)
                }
                if json {
                    context.stdout.write(String(decoding: answer.body, as: UTF8.self))
                } else {
                    context.stdout.write(ExperimentReportText.render(answer.report))
                }
                return ExitStatus.success
            }
        }
    }
}

/// An experiment's report (`GET /v1/environments/{env}/experiments/{flag}`, an unscoped writer token).
extension ServerClient {
    /// The report of `flag` in `environment` for `query`: as parsed, and the body as sent.
    public func experiment(environment: String, flag: String, query: String) throws(ServerError) -> (report: [String: JSONValue], body: [UInt8]) {
        let url = try url(["v1", "environments", environment, "experiments", flag], query: query.isEmpty ? nil : query)
        let response = try successful(.get, url)
        return (try object(response, from: url), [UInt8](response.body))
    }
}
