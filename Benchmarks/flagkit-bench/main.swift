import FlagKit
import Foundation

/// Evaluations per second of Symi's four monetization flags against `flags/production.json` and
/// `flags/staging.json`. Run by hand in release mode (never in CI):
/// `swift run -c release flagkit-bench [flags/production.json]`.
///
/// `flagkit-bench --dates` instead times cohorts that compare dates (`before`/`after` on a custom attribute and on
/// `firstInstallDate`) against the same cohorts comparing text (`lt`/`gt` on a custom string), the peer in the same
/// run. `--dates --only custom-date|install-date|text|make-context [--rounds N]` runs one variant N rounds (or only
/// makes the contexts) and prints nothing timed, for instruction counts (Benchmarks/flagkit-instructions.sh runs it
/// under callgrind).

let symiFlags = ["monetizationEnabled", "premiumFeaturesLocked", "showIntroFreeSubscriptionBanner",
                 "subscriptionPriceIncreaseMessagingEnabled"]
let arguments = Array(CommandLine.arguments.dropFirst())

func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

func fail(_ message: String, code: Int32) -> Never {
    FileHandle.standardError.write(Data("\(message)\n".utf8))
    exit(code)
}

/// 20 flags, each with two rules on date cohorts (or their text peers), evaluated for 1,000 installs.
enum DateBench {
    static let variants = ["custom-date", "install-date", "text"]
    /// `--only make-context`: only the contexts made from their attributes (what a request costs before evaluating).
    static let makeContext = "make-context"

    /// The cohorts of `variant`: the same shape, only the attribute and the operators differ.
    static func cohorts(_ variant: String) -> String {
        switch variant {
        case "custom-date": #""early": {"trialStartedAt": {"before": "2027-01-01T00:00:00Z"}}, "late": {"trialStartedAt": {"after": "2027-06-01T00:00:00+02:00"}}"#
        case "install-date": #""early": {"firstInstallDate": {"before": "2027-01-01T00:00:00Z"}}, "late": {"firstInstallDate": {"after": "2027-06-01T00:00:00+02:00"}}"#
        default: #""early": {"trialDay": {"lt": "2027-01-01T00:00:00Z"}}, "late": {"trialDay": {"gt": "2027-06-01T00:00:00+02:00"}}"#
        }
    }

    static func document(_ variant: String) -> FlagDocument {
        let flags = (0..<20).map { #""d\#($0)": {"type": "integer", "default": 0, "rules": [{"cohort": "early", "value": 1}, {"cohort": "late", "value": 2}]}"# }
        let text = #"{"flags": {\#(flags.joined(separator: ", "))}, "cohorts": {\#(cohorts(variant))}}"#
        do {
            return try FlagDocument.decode(Array(text.utf8))
        } catch {
            fail("the \(variant) document: \(error)", code: 1)
        }
    }

    /// An install's attributes as OFREP or `EvaluationContext(attributes:)` gets them: a date a day apart per install.
    static func attributes(_ index: Int) -> [String: JSONValue] {
        let date = RFC3339.string(milliseconds: 1_780_000_000_000 + Int64(index) * 86_400_000 / 7)
        return ["targetingKey": .string("5A1B\(index)-0000-4000-8000-\(index * 7919)"), "appVersion": "2.4.0", "platform": "ios",
                "trialStartedAt": .string(date), "firstInstallDate": .string(date), "trialDay": .string(date), "plan": "free"]
    }

    static func evaluate(_ document: FlagDocument, _ contexts: [EvaluationContext], rounds: Int) -> Int {
        var checksum = 0
        for _ in 0..<rounds {
            for context in contexts { for key in document.flags.keys { checksum &+= document.evaluate(key, context: context).value.integerValue.map(Int.init) ?? 0 } }
        }
        return checksum
    }

    static func run() {
        let contexts = (0..<1_000).map { EvaluationContext(attributes: attributes($0)) }
        if let only = arguments.firstIndex(of: "--only").map({ arguments.index(after: $0) }).flatMap({ $0 < arguments.count ? arguments[$0] : nil }) {
            guard variants.contains(only) || only == makeContext else {
                fail("--only takes one of \((variants + [makeContext]).joined(separator: ", "))", code: 64)
            }
            let rounds = arguments.firstIndex(of: "--rounds").flatMap { $0 + 1 < arguments.count ? Int(arguments[$0 + 1]) : nil } ?? 1
            if only == makeContext {
                let sent = (0..<1_000).map(attributes)
                var made = 0
                for _ in 0..<rounds { for attributes in sent { made &+= EvaluationContext(attributes: attributes).custom.count } }
                print("checksum \(made)")
                return
            }
            // The checksum (the values' sum) shows that two builds decided the same.
            print("checksum \(evaluate(document(only), contexts, rounds: rounds))")
            return
        }
        var nanoseconds: [String: Double] = [:]
        for variant in variants {
            let document = document(variant)
            _ = evaluate(document, contexts, rounds: 1)
            let rounds = 50
            let start = now()
            let checksum = evaluate(document, contexts, rounds: rounds)
            let each = Double(now() - start) / Double(rounds * contexts.count * document.flags.count)
            nanoseconds[variant] = each
            if checksum == 42 { print("") }
        }
        for variant in variants {
            let each = nanoseconds[variant] ?? 0
            print(String(format: "%-13@ %7.1f ns per flag evaluation (2 cohorts, 20 flags, contexts reused)  %.2fx the text peer",
                         variant, each, each / (nanoseconds["text"] ?? each)))
        }
        // The server's case: a context made per request from its attributes, then every flag evaluated.
        let start = now()
        var made = 0
        for index in 0..<10_000 { made &+= EvaluationContext(attributes: attributes(index % 1_000)).custom.count }
        let perContext = Double(now() - start) / 10_000
        print(String(format: "EvaluationContext(attributes:) with 7 attributes: %.0f ns each", perContext))
        if made == 42 { print("") }
    }
}

if arguments.first == "--dates" {
    DateBench.run()
    exit(0)
}

let paths = arguments.isEmpty ? ["flags/production.json", "flags/staging.json"] : arguments

for path in paths {
    guard let data = FileManager.default.contents(atPath: path) else { fail("cannot read \(path)", code: 2) }
    let document: FlagDocument
    do {
        document = try FlagDocument.decode([UInt8](data))
    } catch {
        fail("\(path): \(error)", code: 1)
    }
    // 1,000 distinct installs across channels and versions so rollouts and cohorts are exercised.
    let contexts = (0..<1_000).map { index in
        EvaluationContext(installId: "5A1B\(index)-0000-4000-8000-\(index * 7919)", appVersion: index % 3 == 0 ? "2.3.1" : "2.4.\(index % 5)",
                          osVersion: "17.\(index % 6)", platform: "ios", locale: index % 4 == 0 ? "en-US" : "de-DE",
                          country: "DE", channel: index % 10 == 0 ? "testflight" : "appstore")
    }
    var checksum = 0
    for key in symiFlags {
        // Warm up, then time enough evaluations for a stable figure.
        for context in contexts { checksum &+= document.evaluate(key, context: context).variant.utf8.count }
        let rounds = 200
        let start = now()
        for _ in 0..<rounds {
            for context in contexts { checksum &+= document.evaluate(key, context: context).variant.utf8.count }
        }
        let elapsed = Double(now() - start) / 1e9
        let count = Double(rounds * contexts.count)
        print(String(format: "%@  %-42@ %10.0f evaluations/s  %6.3f µs each", path, key, count / elapsed, elapsed / count * 1e6))
    }
    let start = now()
    for context in contexts { checksum &+= document.evaluateAll(context: context).count }
    let all = Double(now() - start) / 1e9 / Double(contexts.count)
    print(String(format: "%@  all %d flags at once: %.2f µs per install", path, document.flags.count, all * 1e6))
    if checksum == 42 { print("") }  // keeps the optimizer from dropping the work
}
