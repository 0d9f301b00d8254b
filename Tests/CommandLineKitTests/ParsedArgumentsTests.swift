import Testing
@testable import CommandLineKit

/// Reading values back through their declarations: conversion when read, errors that name the command.
@Suite struct ParsedArgumentsTests {
    static let limit = Option("limit", valueName: "n", help: "") { text throws(UsageError) in
        guard let value = Int(text), value > 0 else { throw UsageError("--limit '\(text)' must be a positive whole number") }
        return value
    }
    static let env = Argument("env", help: "")

    @Test func conversionHappensWhenReadAndItsErrorCarriesTheContext() throws {
        var parsed = try ArgumentParser.parse(["--limit", "0", "production"], options: [Self.limit], arguments: [Self.env])
        parsed.context = UsageError("", usage: "tool history [--limit <n>] <env>", tool: "tool", helpHint: "tool history --help")
        #expect(try parsed.required(Self.env) == "production")
        #expect(throws: UsageError("--limit '0' must be a positive whole number", usage: "tool history [--limit <n>] <env>", tool: "tool",
                                   helpHint: "tool history --help")) { try parsed.value(Self.limit) }
        #expect(parsed.usageError("other").usage == "tool history [--limit <n>] <env>")
    }

    @Test func absentValues() throws {
        let parsed = try ArgumentParser.parse([], options: [Self.limit], arguments: [])
        #expect(try parsed.value(Self.limit) == nil)
        #expect(try parsed.values(Self.limit).isEmpty)
        #expect(parsed.origin(of: Self.limit) == nil)
        #expect(throws: UsageError("missing option '--limit <n>'")) { try parsed.required(Self.limit) }
        #expect(throws: UsageError("missing argument <env>")) { try parsed.required(Self.env) }
    }
}
