/// Rows queued one after another (`Database.enqueueRow`) sent as one multi-row INSERT per table: the server plans,
/// starts and ends one statement for a group commit's versions and one for its audit lines, instead of one per row,
/// which is most of its work per flip.
extension PostgresStatement {
    /// At most this many rows per statement: a statement takes at most 65,535 parameters, and a text this long is
    /// still prepared once and reused.
    static let maximumRowsPerStatement = 256

    /// `statements` with each run of consecutive rows replaced by one statement per SQL text (in the order of each
    /// text's first row, its rows in order); every other statement stays where it was and ends a run.
    static func coalescing(_ statements: [PostgresStatement]) -> [PostgresStatement] {
        guard statements.contains(where: \.row) else { return statements }
        var output: [PostgresStatement] = []
        output.reserveCapacity(statements.count)
        var texts: [String] = []
        var rows: [String: [PostgresStatement]] = [:]
        func endRun() {
            for text in texts {
                let group = rows[text] ?? []
                var start = 0
                while start < group.count {
                    let end = min(start + maximumRowsPerStatement, group.count)
                    output += merged(group[start..<end])
                    start = end
                }
            }
            texts = []
            rows = [:]
        }
        for statement in statements {
            guard statement.row else {
                endRun()
                output.append(statement)
                continue
            }
            if rows[statement.sql] == nil { texts.append(statement.sql) }
            rows[statement.sql, default: []].append(statement)
        }
        endRun()
        return output
    }

    /// One INSERT of every row in `rows` (same SQL text): the `VALUES` tuple repeated, the arguments in order. A text
    /// that does not end in a tuple of placeholders (`VALUES (?, ?)`; nothing after it, such as `ON CONFLICT`) is sent
    /// row by row as it came.
    static func merged(_ rows: ArraySlice<PostgresStatement>) -> [PostgresStatement] {
        guard rows.count > 1, let first = rows.first, let values = first.sql.range(of: "VALUES (", options: .backwards) else {
            return Array(rows)
        }
        let open = first.sql.index(before: values.upperBound)
        let tuple = first.sql[open...]
        guard tuple.last == ")", tuple.dropFirst().dropLast().allSatisfy({ $0 == "?" || $0 == "," || $0 == " " }) else {
            return Array(rows)
        }
        let sql = first.sql[..<open] + Array(repeating: String(tuple), count: rows.count).joined(separator: ", ")
        var arguments: [DatabaseValue] = []
        arguments.reserveCapacity(first.arguments.count * rows.count)
        for row in rows { arguments += row.arguments }
        return [PostgresStatement(sql: String(sql), arguments: arguments)]
    }
}
