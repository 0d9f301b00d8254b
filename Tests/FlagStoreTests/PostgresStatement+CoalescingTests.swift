import Testing
@testable import FlagStore

/// Rows queued one after another become one multi-row INSERT per table (`PostgresStatement.coalescing`); everything
/// else keeps its place. What the server makes of them is checked on a real cluster in `FlagStore+HeadGuardTests` (a
/// batch's statements) and by every publish test on PostgreSQL (the rows read back).
@Suite struct PostgresStatementCoalescingTests {
    static let versions = "INSERT INTO versions (a, b) VALUES (?, ?)"
    static let audit = "INSERT INTO audit (c) VALUES (?)"

    static func row(_ sql: String, _ values: Int64...) -> PostgresStatement {
        PostgresStatement(sql: sql, arguments: values.map(DatabaseValue.integer), row: true)
    }

    @Test func alternatingRowsOfTwoTablesBecomeOneStatementEachInOrder() {
        let queued = [Self.row(Self.versions, 1, 2), Self.row(Self.audit, 10), Self.row(Self.versions, 3, 4), Self.row(Self.audit, 11)]
        let sent = PostgresStatement.coalescing(queued)
        #expect(sent.map(\.sql) == ["INSERT INTO versions (a, b) VALUES (?, ?), (?, ?)", "INSERT INTO audit (c) VALUES (?), (?)"])
        #expect(sent.map(\.arguments) == [[1, 2, 3, 4].map(DatabaseValue.integer), [10, 11].map(DatabaseValue.integer)])
        #expect(sent.allSatisfy { !$0.row })
    }

    @Test func anyOtherStatementEndsARunAndKeepsItsPlace() {
        let queued = [PostgresStatement(sql: "BEGIN"), Self.row(Self.audit, 1), Self.row(Self.audit, 2),
                      PostgresStatement(sql: "SELECT pg_notify(?, ?)"), Self.row(Self.audit, 3), PostgresStatement(sql: "COMMIT")]
        let sent = PostgresStatement.coalescing(queued)
        #expect(sent.map(\.sql) == ["BEGIN", "INSERT INTO audit (c) VALUES (?), (?)", "SELECT pg_notify(?, ?)",
                                    Self.audit, "COMMIT"])
    }

    @Test func aTextThatIsNotAPlainTupleIsSentRowByRow() {
        let upsert = "INSERT INTO t (a) VALUES (?) ON CONFLICT DO NOTHING"
        let expression = "INSERT INTO t (a) VALUES (lower(?))"
        let queued = [Self.row(upsert, 1), Self.row(upsert, 2), Self.row(expression, 3), Self.row(expression, 4)]
        #expect(PostgresStatement.coalescing(queued).map(\.sql) == [upsert, upsert, expression, expression])
    }

    @Test func aLongRunIsSplitIntoStatementsOfAtMostTheMaximum() {
        let count = PostgresStatement.maximumRowsPerStatement * 2 + 3
        let sent = PostgresStatement.coalescing((0..<count).map { Self.row(Self.audit, Int64($0)) })
        #expect(sent.map(\.arguments.count) == [PostgresStatement.maximumRowsPerStatement, PostgresStatement.maximumRowsPerStatement, 3])
        #expect(sent.flatMap(\.arguments) == (0..<count).map { DatabaseValue.integer(Int64($0)) })
    }

    @Test func statementsWithoutRowsAreLeftAsTheyAre() {
        let queued = [PostgresStatement(sql: "BEGIN"), PostgresStatement(sql: Self.audit, arguments: [.integer(1)]),
                      PostgresStatement(sql: Self.audit, arguments: [.integer(2)])]
        #expect(PostgresStatement.coalescing(queued).map(\.sql) == ["BEGIN", Self.audit, Self.audit])
    }
}
