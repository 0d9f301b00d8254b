import FlagKit
import Foundation

/// Evaluations per second of Symi's four monetization flags against `flags/production.json` and
/// `flags/staging.json`. Run by hand in release mode (never in CI):
/// `swift run -c release flagkit-bench [flags/production.json]`.

let symiFlags = ["monetizationEnabled", "premiumFeaturesLocked", "showIntroFreeSubscriptionBanner",
                 "subscriptionPriceIncreaseMessagingEnabled"]
let paths = CommandLine.arguments.count > 1 ? Array(CommandLine.arguments.dropFirst()) : ["flags/production.json", "flags/staging.json"]

func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

for path in paths {
    guard let data = FileManager.default.contents(atPath: path) else {
        FileHandle.standardError.write(Data("cannot read \(path)\n".utf8))
        exit(2)
    }
    let document: FlagDocument
    do {
        document = try FlagDocument.decode([UInt8](data))
    } catch {
        FileHandle.standardError.write(Data("\(path): \(error)\n".utf8))
        exit(1)
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
