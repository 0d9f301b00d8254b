import HTTPServer

/// Evaluation of `If-None-Match` and `If-Match` against a current entity tag (RFC 9110 §13.1).
public enum EntityTags {
    /// One member of a precondition list.
    enum Member: Equatable {
        /// `*`
        case any
        /// An entity tag: its opaque part (quotes included) and whether it was weak (`W/`).
        case tag(opaque: Substring, weak: Bool)
    }

    /// Parses a field value: `*`, or a comma-separated list of entity tags (RFC 9110 §8.8.3).
    /// Returns nil when the value is malformed; commas inside a quoted tag do not split it.
    static func parse(_ value: Substring) -> [Member]? {
        var members: [Member] = []
        var rest = value[...]
        func skipSpaceAndCommas() {
            while let c = rest.first, c == " " || c == "\t" || c == "," { rest = rest.dropFirst() }
        }
        skipSpaceAndCommas()
        if rest.hasPrefix("*") {
            rest = rest.dropFirst()
            skipSpaceAndCommas()
            return rest.isEmpty ? [.any] : nil
        }
        while !rest.isEmpty {
            var weak = false
            if rest.hasPrefix("W/") {
                weak = true
                rest = rest.dropFirst(2)
            }
            guard rest.first == "\"" else { return nil }
            guard let close = rest.dropFirst().firstIndex(of: "\"") else { return nil }
            let end = rest.index(after: close)
            members.append(.tag(opaque: rest[rest.startIndex..<end], weak: weak))
            rest = rest[end...]
            skipSpaceAndCommas()
        }
        return members
    }

    /// Whether `If-None-Match` fields match `current` by WEAK comparison (RFC 9110 §13.1.2: only the
    /// opaque tags are compared, `W/` ignored): then a GET answers 304. A malformed field never matches.
    public static func noneMatchHits(_ fields: [String], current: String) -> Bool {
        let currentOpaque = opaque(current)
        for field in fields {
            guard let members = parse(field[...]) else { continue }
            for member in members {
                switch member {
                case .any: return true
                case .tag(let tag, _): if tag == currentOpaque { return true }
                }
            }
        }
        return false
    }

    /// Whether `If-Match` fields match `current` by STRONG comparison (RFC 9110 §13.1.1: a weak tag never
    /// matches). `*` matches when a current representation exists (`current` non-nil).
    public static func matchHits(_ fields: [String], current: String?) -> Bool {
        for field in fields {
            guard let members = parse(field[...]) else { continue }
            for member in members {
                switch member {
                case .any: if current != nil { return true }
                case .tag(let tag, let weak):
                    if !weak, let current, tag == opaque(current) { return true }
                }
            }
        }
        return false
    }

    /// The quoted opaque part of a tag (drops a `W/` prefix).
    static func opaque(_ tag: String) -> Substring {
        tag.hasPrefix("W/") ? tag.dropFirst(2) : tag[...]
    }
}
