import FlagKit
import Foundation

/// Structured log lines on standard error: `ts=2026-11-29T15:30:00.123Z level=info event=publish env=production version=3`.
///
/// One `write(2)` per line, so lines from several threads never interleave.
public struct ServiceLogger: Sendable {
    /// Severity, lowest first.
    public enum Level: Int, Sendable, Comparable, CaseIterable {
        /// Every request (slows the server down; for debugging).
        case debug
        /// Start, stop, publishes.
        case info
        /// Refused or failed operations worth a look.
        case warning
        /// Failures.
        case error
        /// Nothing.
        case off

        /// `debug`, `info`, `warning`, `error`, `off` (also `warn`).
        public init?(name: String) {
            switch name.lowercased() {
            case "debug": self = .debug
            case "info": self = .info
            case "warning", "warn": self = .warning
            case "error": self = .error
            case "off", "none": self = .off
            default: return nil
            }
        }

        /// The name written as `level=`.
        public var name: String {
            switch self {
            case .debug: "debug"
            case .info: "info"
            case .warning: "warning"
            case .error: "error"
            case .off: "off"
            }
        }

        /// Orders by severity.
        public static func < (lhs: Level, rhs: Level) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    /// Lines below this level are dropped.
    public var minimumLevel: Level
    /// Where lines go; standard error unless a test captures them.
    let sink: @Sendable (String) -> Void

    /// A logger writing to standard error.
    public init(minimumLevel: Level = .info) {
        self.minimumLevel = minimumLevel
        sink = { line in
            let bytes = Array(line.utf8)
            bytes.withUnsafeBytes { raw in _ = Foundation.write(2, raw.baseAddress, raw.count) }
        }
    }

    /// A logger handing lines to `sink` (for tests).
    public init(minimumLevel: Level, sink: @escaping @Sendable (String) -> Void) {
        self.minimumLevel = minimumLevel
        self.sink = sink
    }

    /// Whether `level` would be written.
    public func isEnabled(_ level: Level) -> Bool { level >= minimumLevel && level != .off }

    /// Writes one line: `event` plus `fields` in order; values with spaces, quotes or `=` are quoted.
    public func log(_ level: Level, _ event: String, _ fields: KeyValuePairs<String, String> = [:]) {
        guard isEnabled(level) else { return }
        var line = "ts=\(RFC3339.string(milliseconds: Int64(Date().timeIntervalSince1970 * 1000))) level=\(level.name) event=\(event)"
        for (key, value) in fields {
            line += " \(key)=\(Self.quoted(value))"
        }
        sink(line + "\n")
    }

    /// `value` as is when it is a plain token, otherwise in double quotes with `"`, `\` and newlines escaped.
    static func quoted(_ value: String) -> String {
        let plain = !value.isEmpty && value.unicodeScalars.allSatisfy { scalar in
            scalar.value > 0x20 && scalar.value < 0x7F && scalar != "\"" && scalar != "=" && scalar != "\\"
        }
        if plain { return value }
        var out = "\""
        for character in value {
            switch character {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            default: out.append(character)
            }
        }
        return out + "\""
    }
}
