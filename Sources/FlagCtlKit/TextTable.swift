/// Columns for a terminal: every column but the last padded to its widest cell, two spaces apart; the last
/// column (free text such as a message) is left as it is, so a long message never widens the others.
enum TextTable {
    /// The table of `header` and `rows` (each row as many cells as the header), one line per row. Newlines
    /// in a cell become spaces: one row stays one line.
    static func render(header: [String], rows: [[String]]) -> String {
        let all = ([header] + rows).map { row in row.map { $0.replacingOccurrences(of: "\n", with: " ") } }
        let fixed = header.count - 1
        let widths = (0..<fixed).map { column in all.map { $0[column].count }.max() ?? 0 }
        return all.map { row in
            let padded = (0..<fixed).map { row[$0] + String(repeating: " ", count: widths[$0] - row[$0].count) }
            return (padded + [row[fixed]]).joined(separator: "  ") + "\n"
        }.joined()
    }
}
