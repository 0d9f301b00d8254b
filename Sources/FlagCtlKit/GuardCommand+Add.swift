import CommandLineKit
import FlagKit

extension GuardCommand {
    /// `flagctl guard add ENV (--change ID | --version N) (--file RULE.json | --metric M --action A [...]) [--product P]
    /// [--appstore-environment E]`: a guard on a change (it waits until the change is applied) or a published version.
    public struct Add: Command {
        /// Name, abstract, options, arguments.
        public static let configuration = CommandConfiguration(
            name: "add", abstract: "Add a guard to a change (schedule or change request) or to a published version.",
            discussion: """
            The rule comes from --file (a rule object, or {"guards": [...]}, each may carry product and appStoreEnvironment;
            docs/guards.md) or from the options: --metric refunds|autoRenewOff|billingProblems|started|introConversions
            and --action notify|pauseSchedules|rollback are required, every other field takes its default (per hour,
            against the previous week, at least 5, 72 h, alpha 0.01, +50 %). The rule is checked here as the server
            checks it, so a wrong field is named before anything is sent (field: message).
            Exit status: 0 added, 2 trouble (invalid file, no such change or version, 409 guard_not_applicable, server
            refusing), 64 usage error.
            """,
            options: [changeOption, versionOption, fileOption, metricOption, actionOption, measureOption, baselineOption, thresholdOption,
                      minimumCountOption, windowHoursOption, alphaOption, minimumRelativeChangeOption, productOption, appStoreEnvironmentOption],
            arguments: [ServerCommandSupport.environmentArgument])

        static let changeOption = Option("change", valueName: "id", help: "The change (schedule or change request) it rides on.") {
            text throws(UsageError) in
            guard let id = Int64(text), id >= 1 else { throw UsageError("--change '\(text)' is not a change id (a positive whole number)") }
            return id
        }
        static let versionOption = Option("version", valueName: "n", help: "The published version it watches.") { text throws(UsageError) in
            guard let number = Int(text), number >= 1 else { throw UsageError("--version '\(text)' is not a version number (a positive whole number)") }
            return number
        }
        static let fileOption = Option<String>("file", valueName: "rule.json", help: "The guard file ('-' reads standard input).")
        static let metricOption = Option<String>("metric", valueName: "metric", help: "The watched outcome (refunds, autoRenewOff, ...).")
        static let actionOption = Option<String>("action", valueName: "action", help: "notify, pauseSchedules or rollback.")
        static let measureOption = Option<String>("measure", valueName: "measure", help: "perHour (default), perStarted or perActive.")
        static let baselineOption = Option<String>("baseline", valueName: "previousWeek|floor|ceiling", help: "What it compares with (default: previousWeek).")
        static let thresholdOption = number("threshold", "x", "The floor or ceiling, in the measure's unit.")
        static let minimumCountOption = whole("minimum-count", "n", "Below this many notifications it never trips (default: 5).")
        static let windowHoursOption = whole("window-hours", "h", "How long after publication it watches (default: 72).")
        static let alphaOption = number("alpha", "a", "The chance an unchanged outcome trips it in its window (default: 0.01).")
        static let minimumRelativeChangeOption = number("minimum-relative-change", "r", "Against the previous week, the least change that trips (default: 0.5).")
        static let productOption = Option<String>("product", valueName: "id", help: "Only this product's notifications (default: every product).")
        static let appStoreEnvironmentOption = Option<String>("appstore-environment", valueName: "Production|Sandbox|Xcode|LocalTesting",
                                                              help: "Which App Store environment's notifications (default: Production).")

        /// A number option whose text must parse.
        private static func number(_ name: String, _ valueName: String, _ help: String) -> Option<Double> {
            Option(name, valueName: valueName, help: help) { text throws(UsageError) in
                guard let value = Double(text), value.isFinite else { throw UsageError("--\(name) '\(text)' is not a number") }
                return value
            }
        }

        /// A whole-number option whose text must parse (the range is the rule's to check).
        private static func whole(_ name: String, _ valueName: String, _ help: String) -> Option<Int> {
            Option(name, valueName: valueName, help: help) { text throws(UsageError) in
                guard let value = Int(text) else { throw UsageError("--\(name) '\(text)' is not a whole number") }
                return value
            }
        }

        /// The environment.
        public let environment: String
        /// The change or version.
        public let target: ServerClient.GuardTarget
        /// The file, when the rule comes from one.
        public let file: String?
        /// The guards given by options (empty with `--file`, which is read when the command runs).
        public let requests: [GuardRequest]
        /// `--product`: for every guard that names none.
        public let product: String?
        /// `--appstore-environment`: for every guard that names none.
        public let appStoreEnvironment: String?

        /// From the parsed command line; the rule from options is validated here (`field: message`).
        public init(parsed: ParsedArguments) throws(UsageError) {
            environment = try parsed.required(ServerCommandSupport.environmentArgument)
            switch (try parsed.value(Self.changeOption), try parsed.value(Self.versionOption)) {
            case (let id?, nil): target = .change(id)
            case (nil, let number?): target = .version(number)
            case (_?, _?): throw UsageError("give either --change ID or --version N, not both")
            case (nil, nil): throw UsageError("missing --change ID or --version N: what the guard watches")
            }
            file = try parsed.value(Self.fileOption)
            product = try parsed.value(Self.productOption)
            appStoreEnvironment = try parsed.value(Self.appStoreEnvironmentOption)
            var members: [String: JSONValue] = [:]
            if let metric = try parsed.value(Self.metricOption) { members["metric"] = .string(metric) }
            if let action = try parsed.value(Self.actionOption) { members["action"] = .string(action) }
            if let measure = try parsed.value(Self.measureOption) { members["measure"] = .string(measure) }
            if let baseline = try parsed.value(Self.baselineOption) { members["baseline"] = .string(baseline) }
            if let threshold = try parsed.value(Self.thresholdOption) { members["threshold"] = .numeric(threshold) }
            if let count = try parsed.value(Self.minimumCountOption) { members["minimumCount"] = .integer(Int64(count)) }
            if let hours = try parsed.value(Self.windowHoursOption) { members["windowHours"] = .integer(Int64(hours)) }
            if let alpha = try parsed.value(Self.alphaOption) { members["alpha"] = .numeric(alpha) }
            if let change = try parsed.value(Self.minimumRelativeChangeOption) { members["minimumRelativeChange"] = .numeric(change) }
            if file != nil {
                guard members.isEmpty else {
                    throw UsageError("give either --file or the rule's options (--\(Self.optionName(members.keys.sorted()[0]))), not both")
                }
                requests = []
            } else {
                guard !members.isEmpty else { throw UsageError("missing --file RULE.json or --metric M --action A: the guard's rule") }
                if let product { members["product"] = .string(product) }
                if let appStoreEnvironment { members["appStoreEnvironment"] = .string(appStoreEnvironment) }
                do {
                    requests = [try GuardFile.request(members, path: "")]
                } catch {
                    throw UsageError(error.description)
                }
            }
        }

        /// The option that sets a rule's JSON field (`minimumCount` -> `minimum-count`).
        static func optionName(_ field: String) -> String {
            field.reduce(into: "") { name, character in name += character.isUppercase ? "-" + character.lowercased() : String(character) }
        }

        /// The guards to add: the file's (with `--product` / `--appstore-environment` where a guard names none) or the options'.
        func guardsToAdd() throws(CommandFailure) -> [GuardRequest] {
            guard let file else { return requests }
            var loaded = try GuardFile.load(file)
            for index in loaded.indices {
                if loaded[index].product == nil { loaded[index].product = product }
                if loaded[index].appStoreEnvironment == nil { loaded[index].appStoreEnvironment = appStoreEnvironment }
            }
            // The options' values are checked as a file's would be.
            do {
                for request in loaded { _ = try GuardFile.request(Self.members(request), path: "") }
            } catch {
                throw .invalidGuard(source: file, error)
            }
            return loaded
        }

        /// A request as a rule object again (for checking the product and environment the options filled in).
        static func members(_ request: GuardRequest) -> [String: JSONValue] {
            var members = request.ruleJSON.objectValue ?? [:]
            if let product = request.product { members["product"] = .string(product) }
            if let environment = request.appStoreEnvironment { members["appStoreEnvironment"] = .string(environment) }
            return members
        }

        /// Adds each guard and prints it.
        public func run(_ context: RunContext) -> Int32 {
            ServerCommandSupport.run(context) { client throws(CommandFailure) in
                for request in try guardsToAdd() {
                    let added = try ServerCommandSupport.call { () throws(ServerError) in try client.addGuard(environment, to: target, request) }
                    context.print(GuardRendering.added(added, environment: environment))
                }
                return ExitStatus.success
            }
        }
    }
}
