import Glibc

extension HTTPRouter {
    /// Every pattern as a tree of segments: a node's children are its literal segments (compared as bytes) and
    /// at most one parameter. A path is matched by walking its segments once, literals before the parameter at
    /// each node (literals win where two patterns first differ), instead of trying each pattern of the path's
    /// segment count from the start: with a dozen `/v1/environments/{env}/...` routes that would repeat the first
    /// three segments for each, and a dictionary of static routes would hash the whole path.
    ///
    /// Flat arrays of plain values, walked through unsafe pointers: a tree of objects cost a retain and a release
    /// per node visited, which was more than the comparisons.
    struct Tree: Sendable {
        /// Plain values only: reading a node costs no retain.
        struct Node {
            /// This node's literal children: `literals[literalStart..<literalEnd]`.
            var literalStart = 0
            var literalEnd = 0
            /// The parameter child's node index, or -1.
            var parameter = -1
            /// Index in `entries` of the pattern that ends here, or -1.
            var entry = -1
            /// The index of the segment this node's children match.
            var depth = 0
        }

        struct Literal {
            /// The segment's bytes: `bytes[offset..<offset + count]`.
            var offset: Int
            var count: Int
            var child: Int
        }

        /// Most parameters a pattern may have for the walk to note their places itself (more are found again).
        static let notedParameters = 8

        private(set) var nodes: [Node] = []
        private(set) var literals: [Literal] = []
        private(set) var bytes: [UInt8] = []
        let entries: [Entry]

        /// The tree of `entries` (each pattern once; `Builder.build` refused clashes), in the order the patterns
        /// are tried in.
        init(_ entries: [Entry]) {
            self.entries = entries
            _ = add(Array(entries.indices), depth: 0)
        }

        /// Adds the node for the patterns `group` (indices into `entries`) below `depth`; returns its index.
        private mutating func add(_ group: [Int], depth: Int) -> Int {
            let index = nodes.count
            nodes.append(Node(depth: depth))
            var here = -1
            var literalOrder: [[UInt8]] = []
            var byLiteral: [[UInt8]: [Int]] = [:]
            var parameterGroup: [Int] = []
            for e in group {
                let segments = entries[e].segments
                guard depth < segments.count else {
                    here = e
                    continue
                }
                switch segments[depth] {
                case .literal(let literal):
                    let bytes = Array(literal.utf8)
                    if byLiteral[bytes] == nil { literalOrder.append(bytes) }
                    byLiteral[bytes, default: []].append(e)
                case .parameter:
                    parameterGroup.append(e)
                }
            }
            var children: [Literal] = []
            for literal in literalOrder {
                let child = add(byLiteral[literal] ?? [], depth: depth + 1)
                children.append(Literal(offset: bytes.count, count: literal.count, child: child))
                bytes.append(contentsOf: literal)
            }
            nodes[index].literalStart = literals.count
            literals.append(contentsOf: children)
            nodes[index].literalEnd = literals.count
            nodes[index].entry = here
            if !parameterGroup.isEmpty { nodes[index].parameter = add(parameterGroup, depth: depth + 1) }
            return index
        }

        /// How a walk ended.
        enum Outcome {
            /// The pattern `entries[index]`, with its first `notedParameters` parameters' places in `ranges`.
            case matched(Int)
            /// A parameter segment had a malformed escape before any pattern matched (400): the parameter's name.
            case malformed(String)
            case none
        }

        /// The first pattern, in the order literals-before-parameters, that matches `path` (which starts with
        /// `/`); the parameters' places (start and end of each, in pattern order) go to `ranges`.
        func match(_ path: UnsafeBufferPointer<UInt8>, ranges: UnsafeMutablePointer<(Int, Int)>) -> Outcome {
            nodes.withUnsafeBufferPointer { nodes in
                literals.withUnsafeBufferPointer { literals in
                    bytes.withUnsafeBufferPointer { bytes in
                        let walk = Walk(nodes: nodes, literals: literals, bytes: bytes, path: path, ranges: ranges)
                        switch walk.from(node: 0, start: 1, parameters: 0) {
                        case -1: return .none
                        case let found where found >= 0: return .matched(found)
                        case let failed:
                            // -2 - (entry << 16 | segment index of the parameter)
                            let code = -failed - 2
                            var name = ""
                            if case .parameter(let named) = entries[code >> 16].segments[code & 0xFFFF] { name = named }
                            return .malformed(name)
                        }
                    }
                }
            }
        }

        /// One walk's borrowed views.
        private struct Walk {
            let nodes: UnsafeBufferPointer<Node>
            let literals: UnsafeBufferPointer<Literal>
            let bytes: UnsafeBufferPointer<UInt8>
            let path: UnsafeBufferPointer<UInt8>
            let ranges: UnsafeMutablePointer<(Int, Int)>

            /// The first pattern (in the order they are tried) of `segments` segments that ends at node `index` or
            /// below it, or -1 (a node's depth is the number of segments of a pattern ending there).
            func firstEnding(below index: Int, segments: Int) -> Int {
                let node = nodes[index]
                if node.entry >= 0 && node.depth == segments { return node.entry }
                if node.depth >= segments { return -1 }
                var first = -1
                for i in node.literalStart..<node.literalEnd {
                    let found = firstEnding(below: literals[i].child, segments: segments)
                    if found >= 0 && (first < 0 || found < first) { first = found }
                }
                if node.parameter >= 0 {
                    let found = firstEnding(below: node.parameter, segments: segments)
                    if found >= 0 && (first < 0 || found < first) { first = found }
                }
                return first
            }

            /// The entry index matched below `node` for the segments from `start` on; -1 for none;
            /// `-2 - (e << 16 | d)` when the parameter at segment `d` of pattern `e` met a malformed escape first.
            func from(node index: Int, start: Int, parameters: Int) -> Int {
                let node = nodes[index]
                guard let base = path.baseAddress, start <= path.count else { return node.entry }
                var end = path.count
                if start < path.count, let slash = memchr(base + start, 0x2F, path.count - start) {
                    end = base.distance(to: slash.assumingMemoryBound(to: UInt8.self))
                }
                let length = end - start
                var i = node.literalStart
                while i < node.literalEnd {
                    let literal = literals[i]
                    if literal.count == length
                        && (length == 0 || memcmp(bytes.baseAddress.map { $0 + literal.offset } ?? base, base + start, length) == 0)
                    {
                        // Two literals of one node never spell the same segment: no other literal can match.
                        let found = from(node: literal.child, start: end + 1, parameters: parameters)
                        if found != -1 { return found }
                        break
                    }
                    i += 1
                }
                guard node.parameter >= 0, length > 0 else { return -1 }
                if memchr(base + start, 0x25, length) != nil
                    && HTTPRequest.percentDecode(String(decoding: UnsafeBufferPointer(rebasing: path[start..<end]), as: UTF8.self)) == nil {
                    // A 400 only if a pattern with as many segments as the path has this parameter here: the
                    // escape of a path that no pattern could match is no one's business (404).
                    let segments = path.reduce(0) { $0 + ($1 == 0x2F ? 1 : 0) }
                    let entry = firstEnding(below: node.parameter, segments: segments)
                    return entry < 0 ? -1 : -2 - (entry << 16 | node.depth)
                }
                if parameters < Tree.notedParameters { ranges[parameters] = (start, end) }
                return from(node: node.parameter, start: end + 1, parameters: parameters + 1)
            }
        }
    }

    /// The values of `entry`'s parameters in `path` (which it matched), percent-decoded: from `ranges` for the
    /// first `Tree.notedParameters`, found again for any further ones.
    static func parameters(of entry: Entry, in path: UnsafeBufferPointer<UInt8>, ranges: UnsafePointer<(Int, Int)>) -> HTTPPathParameters {
        var parameters = HTTPPathParameters()
        guard entry.hasParameters, let base = path.baseAddress else { return parameters }
        var ordinal = 0
        var start = 1
        for segment in entry.segments {
            guard case .parameter(let name) = segment else {
                if ordinal >= Tree.notedParameters { start = nextSegment(path, base, start) }
                continue
            }
            let range: (Int, Int)
            if ordinal < Tree.notedParameters {
                range = ranges[ordinal]
            } else {
                let end = nextSegment(path, base, start) - 1
                range = (start, end)
            }
            let part = UnsafeBufferPointer(rebasing: path[range.0..<range.1])
            let raw = String(decoding: part, as: UTF8.self)
            // The walk refused malformed escapes before matching, so decoding succeeds here.
            parameters.append(name: name, value: memchr(base + range.0, 0x25, part.count) != nil ? HTTPRequest.percentDecode(raw) ?? raw : raw)
            ordinal += 1
            start = range.1 + 1
        }
        return parameters
    }

    /// Where the segment after the one starting at `start` starts.
    private static func nextSegment(_ path: UnsafeBufferPointer<UInt8>, _ base: UnsafePointer<UInt8>, _ start: Int) -> Int {
        guard start < path.count, let slash = memchr(base + start, 0x2F, path.count - start) else { return path.count + 1 }
        return base.distance(to: slash.assumingMemoryBound(to: UInt8.self)) + 1
    }
}
