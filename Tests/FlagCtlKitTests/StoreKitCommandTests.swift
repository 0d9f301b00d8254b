import Foundation
import Testing

/// `flagctl storekit check` through the real binary.
@Suite struct StoreKitCommandTests {
    static let files = ["storekit/Symi.storekit", "flags/production.json", "flags/staging.json"]

    @Test func repositoryFilesAreClean() throws {
        let run = try TestSupport.run(["storekit", "check"] + Self.files)
        #expect(run.status == 0)
        #expect(run.stderr.isEmpty)
        #expect(run.stdout == "storekit/Symi.storekit: no findings\nflags/production.json: no findings\nflags/staging.json: no findings\n")
    }

    /// A copy of the repository's StoreKit file with one text replacement, in a fresh directory with both flag files.
    static func directory(replacing old: String, with new: String) throws -> URL {
        let text = String(decoding: try TestSupport.bytes("storekit/Symi.storekit"), as: UTF8.self)
        #expect(text.contains(old))
        return try TestSupport.directory(with: [
            "Symi.storekit": text.replacingOccurrences(of: old, with: new),
            "production.json": String(decoding: try TestSupport.bytes("flags/production.json"), as: UTF8.self),
            "staging.json": String(decoding: try TestSupport.bytes("flags/staging.json"), as: UTF8.self),
        ])
    }

    @Test func aMissingProductExits1() throws {
        let directory = try Self.directory(replacing: #""productID" : "symi_plus_yearly""#, with: #""productID" : "symi_plus_annual""#)
        let run = try TestSupport.run(["storekit", "check", "Symi.storekit", "production.json", "staging.json"], in: directory)
        #expect(run.status == 1)
        #expect(run.stdout == """
        Symi.storekit: /subscriptionGroups/0/subscriptions: [paid-state-testing] symi_plus_yearly is in the catalogue but not in group "Symi Plus": Xcode cannot test the switch to it
        production.json: no findings
        staging.json: /flags/subscriptionProductIds/default/1: [storekit-product] "symi_plus_yearly" is not a subscription in Symi.storekit

        """)
    }

    @Test func aMissingGermanLocalizationExits1() throws {
        let directory = try Self.directory(replacing: #""locale" : "de""#, with: #""locale" : "en_GB""#)
        let run = try TestSupport.run(["storekit", "check", "Symi.storekit", "production.json"], in: directory)
        #expect(run.status == 1)
        #expect(run.stdout.hasPrefix("Symi.storekit: /subscriptionGroups/0/localizations: [german-localization] "))
        #expect(run.stdout.hasSuffix("production.json: no findings\n"))
    }

    @Test func freeCopyWithoutAFreeOfferExits1() throws {
        let directory = try Self.directory(replacing: #""paymentMode" : "free""#, with: #""paymentMode" : "payUpFront""#)
        let run = try TestSupport.run(["storekit", "check", "Symi.storekit", "production.json"], in: directory)
        #expect(run.status == 1)
        #expect(run.stdout.contains(#"production.json: /flags/subscriptionScreenCopy/default/subline: [free-copy-needs-free-offer] promises "kostenlos""#))
    }

    @Test func unreadableOrUnparseableInputExits2() throws {
        let directory = try TestSupport.directory(with: ["broken.storekit": #"{"subscriptionGroups": ["#, "products.storekit": #"{"products": []}"#,
                                                        "invalid.json": #"{"flags": {"x": {"type": "nope"}}}"#])
        let missing = try TestSupport.run(["storekit", "check", "nope.storekit", "x.json"], in: directory)
        #expect(missing.status == 2)
        #expect(missing.stderr == "flagctl: cannot read nope.storekit: No such file or directory (open, errno 2)\n")
        let broken = try TestSupport.run(["storekit", "check", "broken.storekit", "x.json"], in: directory)
        #expect(broken.status == 2)
        #expect(broken.stderr.hasPrefix("flagctl: broken.storekit is not a StoreKit configuration file: /: not JSON: "))
        let notStoreKit = try TestSupport.run(["storekit", "check", "products.storekit", "x.json"], in: directory)
        #expect(notStoreKit.status == 2)
        let flags = try TestSupport.run(["storekit", "check", TestSupport.packageRoot.path + "/storekit/Symi.storekit", "nope.json", "invalid.json"],
                                        in: directory)
        #expect(flags.status == 2)
        #expect(flags.stderr.contains("flagctl: cannot read nope.json: No such file or directory (open, errno 2)\n"))
        #expect(flags.stderr.contains("invalid.json is not a valid flag document"))
        #expect(flags.stdout.hasSuffix("storekit/Symi.storekit: no findings\n"))
    }

    @Test func usageErrorsAndHelp() throws {
        let run = try TestSupport.run(["storekit", "verify", "a.storekit", "b.json"])
        #expect(run.status == 64)
        #expect(run.stderr.contains("unknown storekit action 'verify' (expected 'check')"))
        #expect(try TestSupport.run(["storekit", "check", "a.storekit"]).status == 64)
        let help = try TestSupport.run(["help", "storekit"])
        #expect(help.status == 0 && help.stdout.contains("free-copy-needs-free-offer"))
        #expect(try TestSupport.run(["--help"]).stdout.contains("storekit"))
    }
}
