import Foundation

/// The on-disk format of one cache file, self-describing so that damage is detected rather than trusted:
///
/// ```
/// SYMI-FLAG-CACHE 1 <fnv1a64 hex, 16 digits> <metadata length> <document length>\n
/// <metadata: JSON object {"environment","etag","version","fetchedAt"(ms since 1970)}><document bytes>
/// ```
///
/// The checksum (64-bit FNV-1a) covers the two lengths, the metadata and the document. FNV-1a changes its state bijectively for each
/// byte, so any single changed byte is always detected; lengths catch truncation and appended bytes.
enum FlagCacheFormat {
    /// The magic word that starts every cache file.
    static let magic = "SYMI-FLAG-CACHE"
    /// The format version this build writes and reads.
    static let version = "1"
    /// The longest header line accepted; anything longer is not our header.
    static let maxHeaderBytes = 128

    private struct Metadata: Codable {
        var environment: String
        var etag: String?
        var version: Int?
        var fetchedAt: Int64
    }

    /// The file bytes for an entry.
    static func encode(_ entry: FlagCacheEntry) -> [UInt8] {
        let metadata = Metadata(environment: entry.environment, etag: entry.etag, version: entry.version,
                                fetchedAt: Int64((entry.fetchedAt.timeIntervalSince1970 * 1000).rounded()))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        // Encoding strings and integers cannot fail; an empty object would still be caught on load.
        let metadataBytes = Array((try? encoder.encode(metadata)) ?? Data("{}".utf8))
        let document = Array(entry.document)
        let checksum = fnv1a64(lengthsText(metadataBytes.count, document.count)[...], metadataBytes[...], document[...])
        let hex = String(checksum, radix: 16)
        let header = "\(magic) \(version) \(String(repeating: "0", count: 16 - hex.count) + hex) "
            + "\(metadataBytes.count) \(document.count)\n"
        return Array(header.utf8) + metadataBytes + document
    }

    /// The entry in `bytes`, or why they are not a trustworthy cache file for `environment`.
    static func decode(_ bytes: [UInt8], environment: String) -> Result<FlagCacheEntry, FlagCacheRejection> {
        guard !bytes.isEmpty else { return .failure(.empty) }
        guard bytes.starts(with: Array((magic + " ").utf8)) else { return .failure(.notACacheFile) }
        guard let newline = bytes.prefix(maxHeaderBytes).firstIndex(of: 10) else {
            return .failure(bytes.count < maxHeaderBytes ? .truncated(expected: maxHeaderBytes, actual: bytes.count)
                                                         : .corruptHeader("no end of header line"))
        }
        let fields = String(decoding: bytes[..<newline], as: UTF8.self).split(separator: " ", omittingEmptySubsequences: false)
        guard fields.count == 5 else { return .failure(.corruptHeader("\(fields.count) fields instead of 5")) }
        guard fields[1] == version else { return .failure(.unsupportedFormat(String(fields[1]))) }
        guard fields[2].count == 16, let expected = UInt64(fields[2], radix: 16),
              let metadataLength = Int(fields[3]), metadataLength >= 0,
              let documentLength = Int(fields[4]), documentLength >= 0 else {
            return .failure(.corruptHeader("checksum or lengths are not numbers"))
        }
        let start = newline + 1
        let (content, overflow1) = metadataLength.addingReportingOverflow(documentLength)
        let (total, overflow2) = start.addingReportingOverflow(content)
        guard !overflow1, !overflow2 else { return .failure(.corruptHeader("lengths overflow")) }
        guard bytes.count >= total else { return .failure(.truncated(expected: total, actual: bytes.count)) }
        guard bytes.count == total else { return .failure(.trailingBytes(expected: total, actual: bytes.count)) }
        let metadataBytes = bytes[start..<(start + metadataLength)]
        let document = bytes[(start + metadataLength)...]
        let actual = fnv1a64(lengthsText(metadataLength, documentLength)[...], metadataBytes, document)
        guard actual == expected else { return .failure(.checksumMismatch(expected: expected, actual: actual)) }
        let metadata: Metadata
        do {
            metadata = try JSONDecoder().decode(Metadata.self, from: Data(metadataBytes))
        } catch {
            return .failure(.invalidMetadata(String(describing: error)))
        }
        guard metadata.environment == environment else {
            return .failure(.environmentMismatch(expected: environment, found: metadata.environment))
        }
        return .success(FlagCacheEntry(environment: metadata.environment, etag: metadata.etag, version: metadata.version,
                                       fetchedAt: Date(timeIntervalSince1970: Double(metadata.fetchedAt) / 1000),
                                       document: Data(document)))
    }

    /// The lengths as checksummed: without them, moving the metadata/document boundary would keep the checksum.
    private static func lengthsText(_ metadata: Int, _ document: Int) -> [UInt8] {
        Array("\(metadata) \(document)\n".utf8)
    }

    /// 64-bit FNV-1a over the concatenation of `parts`. A plain loop over contiguous bytes: this runs on
    /// the app's launch path, over the whole document.
    static func fnv1a64(_ parts: ArraySlice<UInt8>...) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for part in parts {
            part.withUnsafeBufferPointer { buffer in
                for byte in buffer {
                    hash ^= UInt64(byte)
                    hash &*= 0x0000_0100_0000_01b3
                }
            }
        }
        return hash
    }
}
