import Foundation
import TestSupport
import Testing
@testable import FlagClient

@Suite struct FlagCacheTests {
    static let document = Data(#"{"flags":{"premiumFeaturesLocked":{"type":"boolean","default":false}},"cohorts":{}}"#.utf8)

    static func entry(_ environment: String = "production", version: Int = 7, document: Data = document) -> FlagCacheEntry {
        FlagCacheEntry(environment: environment, etag: "\"v\(version)\"", version: version,
                       fetchedAt: Date(timeIntervalSince1970: 1_764_400_000.25), document: document)
    }

    /// Runs `body` with a cache in a fresh temp directory.
    func withCache(_ body: (FlagCache, TemporaryDirectory) throws -> Void) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try body(FlagCache(directory: directory.url), directory)
    }

    @Test func storeThenLoadRoundTrips() throws {
        try withCache { cache, directory in
            try cache.store(Self.entry())
            #expect(cache.load(environment: "production") == .loaded(Self.entry()))
            #expect(directory.entries() == ["production.flagcache"], "no temporary file left behind")
            let bytes = try Data(contentsOf: cache.fileURL(for: "production"))
            #expect(bytes.starts(with: Data("SYMI-FLAG-CACHE 1 ".utf8)))
        }
    }

    @Test func storeReplacesAndKeepsEnvironmentsApart() throws {
        try withCache { cache, _ in
            try cache.store(Self.entry(version: 1))
            try cache.store(Self.entry("staging", version: 9))
            try cache.store(Self.entry(version: 2, document: Data("{}".utf8)))
            #expect(cache.load(environment: "production").entry?.version == 2)
            #expect(cache.load(environment: "production").entry?.document == Data("{}".utf8))
            #expect(cache.load(environment: "staging").entry?.version == 9)
        }
    }

    @Test func nilMetadataRoundTrips() throws {
        try withCache { cache, _ in
            let entry = FlagCacheEntry(environment: "dev", etag: nil, version: nil, fetchedAt: Date(timeIntervalSince1970: 0),
                                       document: Data())
            try cache.store(entry)
            #expect(cache.load(environment: "dev") == .loaded(entry))
        }
    }

    @Test func missingFileOrDirectoryIsAbsent() throws {
        try withCache { cache, directory in
            #expect(cache.load(environment: "production") == .absent)
            let nowhere = FlagCache(directory: directory.url.appendingPathComponent("not/there"))
            #expect(nowhere.load(environment: "production") == .absent)
        }
    }

    @Test func storeCreatesTheDirectory() throws {
        try withCache { _, directory in
            let nested = FlagCache(directory: directory.url.appendingPathComponent("a/b/c"))
            try nested.store(Self.entry())
            #expect(nested.load(environment: "production").entry == Self.entry())
        }
    }

    @Test func emptyFileIsRejected() throws {
        try withCache { cache, _ in
            try Data().write(to: cache.fileURL(for: "production"))
            #expect(cache.load(environment: "production") == .rejected(.empty))
        }
    }

    @Test func everyTruncationIsRejected() throws {
        try withCache { cache, _ in
            try cache.store(Self.entry())
            let url = cache.fileURL(for: "production")
            let full = try Data(contentsOf: url)
            for length in 1..<full.count {
                try full.prefix(length).write(to: url)
                let result = cache.load(environment: "production")
                #expect(result.rejection != nil, "cut at \(length) of \(full.count) was accepted")
            }
            try full.prefix(full.count - 1).write(to: url)
            #expect(cache.load(environment: "production") == .rejected(.truncated(expected: full.count, actual: full.count - 1)))
        }
    }

    @Test func everyFlippedByteIsRejected() throws {
        try withCache { cache, _ in
            try cache.store(Self.entry())
            let url = cache.fileURL(for: "production")
            let full = try Data(contentsOf: url)
            for position in full.indices {
                for mask: UInt8 in [0x01, 0x80, 0xFF] {
                    var damaged = full
                    damaged[position] ^= mask
                    try damaged.write(to: url)
                    #expect(cache.load(environment: "production").rejection != nil,
                            "flip \(mask) at \(position) was accepted")
                }
            }
        }
    }

    @Test func flippedDocumentByteIsAChecksumMismatch() throws {
        try withCache { cache, _ in
            try cache.store(Self.entry())
            let url = cache.fileURL(for: "production")
            var damaged = try Data(contentsOf: url)
            // Turn `"default":false` into `"default":talse`: still plausible JSON-ish text, caught by the checksum.
            let index = try #require(damaged.lastIndex(of: UInt8(ascii: "f")))
            damaged[index] = UInt8(ascii: "t")
            try damaged.write(to: url)
            guard case .rejected(.checksumMismatch) = cache.load(environment: "production") else {
                Issue.record("expected a checksum mismatch")
                return
            }
        }
    }

    @Test func appendedBytesAreRejected() throws {
        try withCache { cache, _ in
            try cache.store(Self.entry())
            let url = cache.fileURL(for: "production")
            let full = try Data(contentsOf: url)
            try (full + Data("x".utf8)).write(to: url)
            #expect(cache.load(environment: "production") == .rejected(.trailingBytes(expected: full.count, actual: full.count + 1)))
        }
    }

    @Test(arguments: [1, 17, 200, 4096])
    func randomBytesAreRejected(_ size: Int) throws {
        try withCache { cache, _ in
            let noise = Data((0..<size).map { _ in UInt8.random(in: 0...255) })
            try noise.write(to: cache.fileURL(for: "production"))
            #expect(cache.load(environment: "production") == .rejected(.notACacheFile))
        }
    }

    @Test func plainJSONDocumentIsNotACacheFile() throws {
        try withCache { cache, _ in
            try Self.document.write(to: cache.fileURL(for: "production"))
            #expect(cache.load(environment: "production") == .rejected(.notACacheFile))
        }
    }

    @Test func otherFormatVersionIsRejected() throws {
        try withCache { cache, _ in
            try cache.store(Self.entry())
            let url = cache.fileURL(for: "production")
            var bytes = try Data(contentsOf: url)
            bytes[bytes.startIndex + "SYMI-FLAG-CACHE ".utf8.count] = UInt8(ascii: "2")
            try bytes.write(to: url)
            #expect(cache.load(environment: "production") == .rejected(.unsupportedFormat("2")))
        }
    }

    @Test func anotherEnvironmentsFileIsRejected() throws {
        try withCache { cache, _ in
            try cache.store(Self.entry("staging"))
            try FileManager.default.copyItem(at: cache.fileURL(for: "staging"), to: cache.fileURL(for: "production"))
            #expect(cache.load(environment: "production")
                    == .rejected(.environmentMismatch(expected: "production", found: "staging")))
        }
    }

    @Test func directoryInPlaceOfTheFile() throws {
        try withCache { cache, _ in
            let url = cache.fileURL(for: "production")
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false)
            #expect(cache.load(environment: "production") == .rejected(.notARegularFile))
            #expect(throws: FlagCacheError.self) { try cache.store(Self.entry()) }
            var isDirectory: ObjCBool = false
            #expect(FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) && isDirectory.boolValue)
        }
    }

    @Test func unwritableDirectoryKeepsTheOldCache() throws {
        try withCache { cache, directory in
            try cache.store(Self.entry(version: 1))
            let undo = try directory.makeReadOnly()
            defer { undo() }
            let error = try #require(throws: FlagCacheError.self) { try cache.store(Self.entry(version: 2)) }
            #expect(error.operation == "open")
            #expect(error.errno == EPERM || error.errno == EACCES)
            #expect(cache.load(environment: "production").entry?.version == 1)
            #expect(directory.entries() == ["production.flagcache"])
        }
    }

    @Test func cacheDirectoryThatIsAFile() throws {
        try withCache { _, directory in
            let file = directory.url.appendingPathComponent("file")
            try Data("x".utf8).write(to: file)
            let cache = FlagCache(directory: file)
            #expect(cache.load(environment: "production") == .absent)
            let error = try #require(throws: FlagCacheError.self) { try cache.store(Self.entry()) }
            #expect(error.errno == ENOTDIR || error.errno == EEXIST)
        }
    }

    @Test(arguments: ["", ".hidden", "..", "a/b", "../production", "prod uction", String(repeating: "x", count: 65)])
    func invalidEnvironmentNamesAreRefused(_ name: String) throws {
        try withCache { cache, directory in
            #expect(cache.load(environment: name) == .rejected(.invalidEnvironment(name)))
            #expect(throws: FlagCacheError.self) { try cache.store(Self.entry(name)) }
            #expect(directory.entries().isEmpty)
        }
    }

    @Test func oversizedFilesAreRefused() throws {
        try withCache { _, directory in
            let small = FlagCache(directory: directory.url, maxFileBytes: 100)
            try Data(repeating: 65, count: 200).write(to: small.fileURL(for: "production"))
            #expect(small.load(environment: "production") == .rejected(.tooLarge(size: 200, limit: 100)))
            #expect(throws: FlagCacheError.self) { try small.store(Self.entry()) }
        }
    }

    @Test func removeDeletesAndToleratesMissing() throws {
        try withCache { cache, _ in
            try cache.store(Self.entry())
            try cache.remove(environment: "production")
            #expect(cache.load(environment: "production") == .absent)
            try cache.remove(environment: "production")
        }
    }

    @Test func concurrentStoresLeaveOneCompleteWinner() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let cache = FlagCache(directory: directory.url)
        await withTaskGroup(of: Void.self) { group in
            for version in 1...16 {
                group.addTask {
                    let document = Data(String(repeating: "\(version),", count: 500 * version).utf8)
                    try? cache.store(Self.entry(version: version, document: document))
                }
            }
        }
        let entry = try #require(cache.load(environment: "production").entry)
        let version = try #require(entry.version)
        #expect(entry.document == Data(String(repeating: "\(version),", count: 500 * version).utf8))
        #expect(directory.entries() == ["production.flagcache"])
    }
}
