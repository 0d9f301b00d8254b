import FlagKit

/// The fast path of `OFREPRequest.parse` for the bodies providers actually send:
/// `{"context":{"targetingKey":"...","appVersion":"2.4.0",...}}`, read straight into an
/// `EvaluationContext` without building a `JSONValue` tree, dictionaries of members or a second pass.
///
/// It accepts only a strict subset of what the general parser accepts, and gives up (nil) on
/// anything else, which then goes through `OFREPRequest.parse` unchanged. So every refusal, with its
/// code and message, still comes from the general path; the subset is chosen so that an accepted
/// body gives exactly the context the general path gives:
/// - the top level is an object with the single member `"context"`, whose value is an object;
/// - context member names are ASCII without escapes (then byte equality is `String` equality, which
///   is what the general parser's duplicate check uses) and appear once each;
/// - values are strings without escapes or control characters, `true`, `false`, `null` or numbers
///   (RFC 8259 §6 grammar, converted by the same rules as `JSONParser`); no arrays or objects;
/// - built-in attributes (and `targetingKey`) are strings, `firstInstallDate` a valid RFC 3339 date-time, and
///   `targetingKey` equals `installId` when both are sent.
enum OFREPContextScanner {
    /// The context of `body`, or nil when the general parser must decide.
    static func context(in body: [UInt8]) -> EvaluationContext? {
        body.withUnsafeBufferPointer { buffer in
            var scanner = Scanner(bytes: buffer, collectsMembers: false)
            return scanner.scanBody()?.context
        }
    }

    /// The whole request of `body` (with the `context` member as a `JSONValue`, for the bulk `ETag`),
    /// or nil when the general parser must decide.
    static func request(in body: [UInt8]) -> OFREPRequest? {
        body.withUnsafeBufferPointer { buffer in
            var scanner = Scanner(bytes: buffer, collectsMembers: true)
            guard let (context, members) = scanner.scanBody() else { return nil }
            return OFREPRequest(context: context, contextValue: .object(members))
        }
    }

    private struct Scanner {
        let bytes: UnsafeBufferPointer<UInt8>
        /// Whether to keep every member as a `JSONValue` too (only the bulk endpoint needs them).
        let collectsMembers: Bool
        var index = 0

        init(bytes: UnsafeBufferPointer<UInt8>, collectsMembers: Bool) {
            self.bytes = bytes
            self.collectsMembers = collectsMembers
        }

        /// The context and, when collecting, the context object's members as the general parser has them.
        mutating func scanBody() -> (context: EvaluationContext, members: [String: JSONValue])? {
            skipWhitespace()
            guard take(UInt8(ascii: "{")) else { return nil }
            skipWhitespace()
            guard let name = plainString(), matches(name, "context") else { return nil }
            skipWhitespace()
            guard take(UInt8(ascii: ":")) else { return nil }
            skipWhitespace()
            guard let context = scanContext() else { return nil }
            skipWhitespace()
            guard take(UInt8(ascii: "}")) else { return nil }
            skipWhitespace()
            return index == bytes.count ? context : nil
        }

        private mutating func scanContext() -> (context: EvaluationContext, members: [String: JSONValue])? {
            guard take(UInt8(ascii: "{")) else { return nil }
            // The built-ins straight into the context (FlagKit's one table of them); `targetingKey` beside it.
            var context = EvaluationContext()
            var targetingKey: String?
            var custom: [String: JSONValue] = [:]
            skipWhitespace()
            if !take(UInt8(ascii: "}")) {
                while true {
                    guard let name = plainString(), isASCII(name) else { return nil }
                    skipWhitespace()
                    guard take(UInt8(ascii: ":")) else { return nil }
                    skipWhitespace()
                    let nameBytes = UnsafeBufferPointer(rebasing: bytes[name])
                    if matches(name, "targetingKey") {
                        guard targetingKey == nil, let range = plainString(), let text = string(range) else { return nil }
                        targetingKey = text
                    } else if let builtIn = BuiltInAttribute.named(utf8: nameBytes) {
                        // Built-ins must be strings; anything else is the general path's INVALID_CONTEXT.
                        guard context[builtIn: builtIn] == nil, let range = plainString(), let text = string(range) else { return nil }
                        context[builtIn: builtIn] = text
                        // An install date that does not parse is the general path's INVALID_CONTEXT too.
                        if builtIn.isInstant, context.firstInstallMilliseconds == nil { return nil }
                    } else {
                        guard let value = scalar() else { return nil }
                        let key = String(decoding: bytes[name], as: UTF8.self)
                        guard custom.updateValue(value, forKey: key) == nil else { return nil }
                    }
                    skipWhitespace()
                    if take(UInt8(ascii: ",")) {
                        skipWhitespace()
                        continue
                    }
                    guard take(UInt8(ascii: "}")) else { return nil }
                    break
                }
            }
            if let targetingKey, let installId = context.installId, targetingKey != installId { return nil }
            let sentInstallId = context.installId
            if let targetingKey { context.installId = targetingKey }
            context.custom = custom
            // As in the general path: an empty key identifies nobody.
            if context.installId?.isEmpty == true { context.installId = nil }
            guard collectsMembers else { return (context, [:]) }
            // Built-ins are strings under the names they were sent with (`targetingKey` stays so).
            var members = custom
            if let targetingKey { members[BuiltInAttribute.targetingKeyName] = .string(targetingKey) }
            for attribute in BuiltInAttribute.allCases {
                let text = attribute == .installId ? sentInstallId : context[builtIn: attribute]
                if let text { members[attribute.rawValue] = .string(text) }
            }
            return (context, members)
        }

        /// A string, `true`, `false`, `null` or a number; nil for anything else (arrays, objects, escapes).
        private mutating func scalar() -> JSONValue? {
            guard index < bytes.count else { return nil }
            switch bytes[index] {
            case UInt8(ascii: "\""):
                guard let range = plainString(), let text = string(range) else { return nil }
                return .string(text)
            case UInt8(ascii: "t"): return literal("true") ? .bool(true) : nil
            case UInt8(ascii: "f"): return literal("false") ? .bool(false) : nil
            case UInt8(ascii: "n"): return literal("null") ? .null : nil
            default: return number()
            }
        }

        /// RFC 8259 §6 `-? int frac? exp?`, converted exactly as `JSONParser` does.
        private mutating func number() -> JSONValue? {
            let start = index
            var isIntegral = true
            _ = take(UInt8(ascii: "-"))
            guard index < bytes.count, isDigit(bytes[index]) else { return nil }
            if bytes[index] == UInt8(ascii: "0") {
                index += 1
                if index < bytes.count, isDigit(bytes[index]) { return nil }
            } else {
                skipDigits()
            }
            if take(UInt8(ascii: ".")) {
                isIntegral = false
                guard skipDigits() > 0 else { return nil }
            }
            if take(UInt8(ascii: "e")) || take(UInt8(ascii: "E")) {
                isIntegral = false
                if !take(UInt8(ascii: "+")) { _ = take(UInt8(ascii: "-")) }
                guard skipDigits() > 0 else { return nil }
            }
            let text = String(decoding: bytes[start..<index], as: UTF8.self)
            if isIntegral, let integer = Int64(text) { return .integer(integer) }
            guard let double = Double(text), double.isFinite else { return nil }
            return .numeric(double)
        }

        /// The bytes between the quotes of a string without escapes or control characters.
        private mutating func plainString() -> Range<Int>? {
            guard take(UInt8(ascii: "\"")) else { return nil }
            let start = index
            while index < bytes.count {
                let byte = bytes[index]
                if byte == UInt8(ascii: "\"") {
                    index += 1
                    return start..<(index - 1)
                }
                if byte == UInt8(ascii: "\\") || byte < 0x20 { return nil }
                index += 1
            }
            return nil
        }

        /// The text of a string's bytes; nil for invalid UTF-8 (as the general parser, which refuses it).
        /// ASCII, the usual case, is copied without a validation pass (it is valid UTF-8 as it is).
        private func string(_ range: Range<Int>) -> String? {
            isASCII(range) ? String(decoding: bytes[range], as: UTF8.self) : String(validating: bytes[range], as: UTF8.self)
        }

        private func matches(_ range: Range<Int>, _ text: StaticString) -> Bool {
            guard range.count == text.utf8CodeUnitCount else { return false }
            let expected = UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount)
            var position = range.lowerBound
            for byte in expected {
                guard bytes[position] == byte else { return false }
                position += 1
            }
            return true
        }

        private func isASCII(_ range: Range<Int>) -> Bool {
            for position in range where bytes[position] >= 0x80 { return false }
            return true
        }

        private mutating func literal(_ text: StaticString) -> Bool {
            let end = index + text.utf8CodeUnitCount
            guard end <= bytes.count, matches(index..<end, text) else { return false }
            index = end
            return true
        }

        private mutating func take(_ byte: UInt8) -> Bool {
            guard index < bytes.count, bytes[index] == byte else { return false }
            index += 1
            return true
        }

        private mutating func skipWhitespace() {
            while index < bytes.count {
                let byte = bytes[index]
                guard byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 else { return }
                index += 1
            }
        }

        @discardableResult
        private mutating func skipDigits() -> Int {
            let start = index
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
            return index - start
        }

        private func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
    }
}
