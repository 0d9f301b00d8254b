import CSQLite
import Foundation
import TestSupport
import Testing
@testable import FlagStore

/// The connection wrapper against real files.
@Suite struct DatabaseTests {
    @Test func walIsSetAndReportedOnAFile() throws {
        let directory = try TemporaryDirectory()
        let database = try SQLiteConnection(path: directory.file("a.sqlite"))
        #expect(try database.setJournalMode("WAL") == "wal")
    }

    @Test func walRequestIsAnsweredWithTheModeActuallySet() throws {
        // An in-memory database cannot use WAL; SQLite says so in the pragma's result, not by failing.
        let database = try SQLiteConnection(path: ":memory:")
        #expect(try database.setJournalMode("WAL") == "memory")
    }

    @Test func transactionCommitsOnReturn() throws {
        let directory = try TemporaryDirectory()
        let database = try Database(path: directory.file("a.sqlite"))
        try database.execute("CREATE TABLE t (x INTEGER)")
        try database.transaction { try database.run("INSERT INTO t VALUES (1)") }
        #expect(try database.query("SELECT x FROM t") { $0.int(0) } == [1])
        #expect(!database.isInTransaction)
    }

    @Test func transactionRollsBackOnThrow() throws {
        struct Boom: Error {}
        let directory = try TemporaryDirectory()
        let database = try Database(path: directory.file("a.sqlite"))
        try database.execute("CREATE TABLE t (x INTEGER)")
        #expect(throws: Boom.self) {
            try database.transaction {
                try database.run("INSERT INTO t VALUES (1)")
                throw Boom()
            }
        }
        #expect(try database.query("SELECT x FROM t") { $0.int(0) } == [])
        #expect(!database.isInTransaction)
    }

    @Test func nestedTransactionRollsBackOnlyItsPart() throws {
        struct Boom: Error {}
        let directory = try TemporaryDirectory()
        let database = try Database(path: directory.file("a.sqlite"))
        try database.execute("CREATE TABLE t (x INTEGER)")
        try database.transaction {
            try database.run("INSERT INTO t VALUES (1)")
            _ = try? database.transaction {
                try database.run("INSERT INTO t VALUES (2)")
                throw Boom()
            }
        }
        #expect(try database.query("SELECT x FROM t") { $0.int(0) } == [1])
    }

    @Test func errorsCarryExtendedCodeMessageAndSQL() throws {
        let directory = try TemporaryDirectory()
        let database = try Database(path: directory.file("a.sqlite"))
        try database.execute("CREATE TABLE t (x INTEGER UNIQUE)")
        try database.run("INSERT INTO t VALUES (?)", [.integer(1)])
        let error = try #require(throws: DatabaseError.self) {
            try database.run("INSERT INTO t VALUES (?)", [.integer(1)])
        }
        #expect(error.resultCode == SQLITE_CONSTRAINT)
        #expect(error.extendedResultCode == CSQLITE_CONSTRAINT_UNIQUE)
        #expect(error.isUniqueViolation)
        #expect(error.sql == "INSERT INTO t VALUES (?)")
        #expect(error.message.contains("UNIQUE"))
    }

    @Test func syntaxErrorNamesTheSQL() throws {
        let database = try Database(path: ":memory:")
        let error = try #require(throws: DatabaseError.self) { try database.run("SELEC 1") }
        #expect(error.resultCode == SQLITE_ERROR)
        #expect(error.sql == "SELEC 1")
    }

    @Test func wrongArgumentCountIsRefused() throws {
        let database = try Database(path: ":memory:")
        let error = try #require(throws: DatabaseError.self) { try database.run("SELECT ?, ?", [.integer(1)]) }
        #expect(error.resultCode == SQLITE_RANGE)
    }

    @Test func busyAfterTimeoutHasBusyCode() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("a.sqlite")
        let holder = try SQLiteConnection(path: path)
        #expect(try holder.setJournalMode("WAL") == "wal")
        try holder.execute("CREATE TABLE t (x INTEGER); BEGIN IMMEDIATE")
        let waiter = try Database(path: path, busyTimeout: .milliseconds(50))
        let error = try #require(throws: DatabaseError.self) { try waiter.execute("BEGIN IMMEDIATE") }
        #expect(error.resultCode == SQLITE_BUSY)
        #expect(error.isBusy)
        try holder.execute("COMMIT")
        try waiter.transaction { try waiter.run("INSERT INTO t VALUES (1)") }
    }

    @Test func closedConnectionFailsWithMisuse() throws {
        let database = try Database(path: ":memory:")
        database.close()
        let error = try #require(throws: DatabaseError.self) { try database.run("SELECT 1") }
        #expect(error.resultCode == SQLITE_MISUSE)
    }

    @Test func openingADirectoryFailsClearly() throws {
        let directory = try TemporaryDirectory()
        let error = try #require(throws: DatabaseError.self) {
            let database = try SQLiteConnection(path: directory.path)
            _ = try database.userVersion()
        }
        #expect(error.resultCode == SQLITE_CANTOPEN)
    }

    @Test func userVersionRoundTrips() throws {
        let database = try SQLiteConnection(path: ":memory:")
        #expect(try database.userVersion() == 0)
        try database.setUserVersion(7)
        #expect(try database.userVersion() == 7)
    }
}
