import FlagKit
import Foundation
import TestSupport
import Testing
@testable import FlagStore

/// Tokens: creation, authentication, revocation, roles, storage as hashes only.
@Suite struct FlagStoreTokensTests {
    @Test(arguments: StoreEngine.allCases) func createdTokenAuthenticatesWithItsRole(engine: StoreEngine) throws {
        let directory = try TemporaryDirectory()
        let store = try engine.open(directory)
        let (secret, record) = try store.createToken(name: "ci-deploy", role: .writer, actor: "ops")
        #expect(secret.hasPrefix("sfl_"))
        #expect(secret.utf8.count == 4 + 43)
        #expect(record.name == "ci-deploy" && record.role == .writer && record.isActive)
        #expect(try store.authenticate(secret: secret) == record)
        #expect(try store.listTokens() == [record])
        let audit = try #require(try store.auditEntries().first)
        #expect(audit.action == "token.create" && audit.actor == "ops" && audit.detail == "name ci-deploy role writer")
    }

    @Test(arguments: StoreEngine.allCases) func wrongOrMalformedSecretsDoNotAuthenticate(engine: StoreEngine) throws {
        let directory = try TemporaryDirectory()
        let store = try engine.open(directory)
        let (secret, _) = try store.createToken(name: "app", role: .reader)
        var altered = Array(secret.utf8)
        altered[altered.count - 1] = altered[altered.count - 1] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        for wrong in [String(decoding: altered, as: UTF8.self), "", "sfl_", String(secret.dropFirst(4)),
                      secret + "x", secret.uppercased(), SHA256.hexDigest(Array(secret.utf8))] {
            #expect(try store.authenticate(secret: wrong) == nil, "\(wrong)")
        }
    }

    @Test(arguments: StoreEngine.allCases) func secretsAreRandomAndStoredOnlyAsHashes(engine: StoreEngine) throws {
        let directory = try TemporaryDirectory()
        let path = try engine.location(directory)
        let store = try FlagStore.open(location: path)
        let secrets = try (0..<5).map { try store.createToken(name: "t\($0)", role: .reader).secret }
        #expect(Set(secrets).count == 5)
        store.close()
        let stored = try engine.everythingStored(path)
        for secret in secrets {
            let randomPart = Data(secret.dropFirst(4).utf8)
            #expect(stored.range(of: randomPart) == nil, "secret found in the database file")
            #expect(stored.range(of: Data(SHA256.hexDigest(Array(secret.utf8)).utf8)) != nil, "hash not found")
        }
    }

    @Test(arguments: StoreEngine.allCases) func revokedTokenStopsAuthenticatingAndItsNameCanBeReused(engine: StoreEngine) throws {
        let directory = try TemporaryDirectory()
        let store = try engine.open(directory)
        let (old, _) = try store.createToken(name: "ops", role: .admin)
        let table = try store.tokenTable()
        let revoked = try store.revokeToken(name: "ops", actor: "security")
        #expect(!revoked.isActive)
        #expect(try store.authenticate(secret: old) == nil)
        #expect(try store.tokenTable().authenticate(secret: old) == nil)
        #expect(table.authenticate(secret: old) != nil, "a table loaded before revocation must be reloaded")
        #expect(throws: FlagStoreError.tokenNotFound("ops")) { try store.revokeToken(name: "ops") }
        let (new, record) = try store.createToken(name: "ops", role: .reader)
        #expect(try store.authenticate(secret: new) == record)
        #expect(try store.listTokens().map(\.name) == ["ops"])
        #expect(try store.listTokens(includeRevoked: true).map(\.isActive) == [false, true])
        #expect(try store.auditEntries().map(\.action) == ["token.create", "token.revoke", "token.create"])
    }

    @Test(arguments: StoreEngine.allCases) func activeNamesAreUniqueAndValidated(engine: StoreEngine) throws {
        let directory = try TemporaryDirectory()
        let store = try engine.open(directory)
        _ = try store.createToken(name: "ci", role: .writer)
        #expect(throws: FlagStoreError.tokenNameTaken("ci")) { try store.createToken(name: "ci", role: .reader) }
        for bad in ["", "has space", "ä", "a/b", String(repeating: "x", count: 65)] {
            #expect(throws: FlagStoreError.invalidTokenName(bad)) { try store.createToken(name: bad, role: .reader) }
        }
        #expect(try store.listTokens().count == 1)
    }

    @Test func rolesIncludeTheOnesBelow() {
        #expect(TokenRole.admin.allows(.writer) && TokenRole.admin.allows(.reader) && TokenRole.admin.allows(.admin))
        #expect(TokenRole.writer.allows(.reader) && TokenRole.writer.allows(.writer) && !TokenRole.writer.allows(.admin))
        #expect(TokenRole.reader.allows(.reader) && !TokenRole.reader.allows(.writer))
        #expect(TokenRole(rawValue: "owner") == nil)
    }

    @Test(arguments: StoreEngine.allCases) func tokenTableAuthenticatesInMemory(engine: StoreEngine) throws {
        let directory = try TemporaryDirectory()
        let store = try engine.open(directory)
        let reader = try store.createToken(name: "r", role: .reader)
        let writer = try store.createToken(name: "w", role: .writer)
        let table = try store.tokenTable()
        store.close()
        #expect(table.count == 2)
        #expect(table.authenticate(secret: reader.secret) == reader.record)
        #expect(table.authenticate(secret: writer.secret)?.role == .writer)
        #expect(table.authenticate(secret: "sfl_nope") == nil)
    }

    @Test func constantTimeEqualsComparesWholeStrings() {
        #expect(TokenTable.constantTimeEquals([1, 2, 3], [1, 2, 3]))
        #expect(!TokenTable.constantTimeEquals([1, 2, 3], [1, 2, 4]))
        #expect(!TokenTable.constantTimeEquals([9, 2, 3], [1, 2, 3]))
        #expect(!TokenTable.constantTimeEquals([1, 2], [1, 2, 3]))
        #expect(TokenTable.constantTimeEquals([], []))
    }

    @Test func base64URLMatchesRFC4648Vectors() {
        // RFC 4648 §10 vectors, without padding, in the URL-safe alphabet.
        let vectors = ["": "", "f": "Zg", "fo": "Zm8", "foo": "Zm9v", "foob": "Zm9vYg", "fooba": "Zm9vYmE", "foobar": "Zm9vYmFy"]
        for (input, output) in vectors { #expect(FlagStore.base64URL(Array(input.utf8)) == output) }
        #expect(FlagStore.base64URL([0xfb, 0xff]) == "-_8")
    }

    @Test(arguments: StoreEngine.allCases) func aScopedTokenCarriesItsEnvironmentsEverywhere(engine: StoreEngine) throws {
        let directory = try TemporaryDirectory()
        let store = try engine.open(directory)
        try store.createEnvironment(name: "qa", actor: "ops")
        let (secret, record) = try store.createToken(name: "staging-ci", role: .writer, environments: ["staging", "qa"], actor: "ops")
        #expect(record.environments == ["staging", "qa"] && record.isScoped)
        #expect(record.allows(environment: "staging") && record.allows(environment: "qa"))
        #expect(!record.allows(environment: "production"))
        #expect(try store.authenticate(secret: secret)?.environments == ["qa", "staging"])
        #expect(try store.tokenTable().authenticate(secret: secret) == record)
        #expect(try store.listTokens() == [record])
        let audit = try #require(try store.auditEntries().first)
        #expect(audit.action == "token.create" && audit.target == "staging-ci")
        #expect(audit.detail == "name staging-ci role writer environments qa,staging")
        let revoked = try store.revokeToken(name: "staging-ci", actor: "ops")
        #expect(revoked.environments == ["qa", "staging"] && !revoked.isActive)
    }

    @Test(arguments: StoreEngine.allCases) func anUnscopedTokenAllowsEveryEnvironmentAlsoLaterOnes(engine: StoreEngine) throws {
        let directory = try TemporaryDirectory()
        let store = try engine.open(directory)
        let (secret, record) = try store.createToken(name: "ops", role: .admin)
        #expect(record.environments == nil && !record.isScoped)
        try store.createEnvironment(name: "later", actor: "ops")
        #expect(try store.authenticate(secret: secret)?.allows(environment: "later") == true)
    }

    @Test(arguments: StoreEngine.allCases) func anEmptyOrUnknownScopeIsRefusedAndWritesNothing(engine: StoreEngine) throws {
        let directory = try TemporaryDirectory()
        let store = try engine.open(directory)
        #expect(throws: FlagStoreError.invalidArgument(name: "environments", reason: "must name at least one environment (nil: all)")) {
            try store.createToken(name: "x", role: .reader, environments: [])
        }
        #expect(throws: FlagStoreError.unknownEnvironment("prod", known: ["production", "staging"])) {
            try store.createToken(name: "x", role: .reader, environments: ["staging", "prod"])
        }
        #expect(try store.listTokens(includeRevoked: true).isEmpty)
        #expect(try store.auditEntries().isEmpty)
    }
}
