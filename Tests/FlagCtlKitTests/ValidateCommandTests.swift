import Testing

/// `flagctl validate` through the real binary.
@Suite struct ValidateCommandTests {
    @Test func symisFilesAreValid() throws {
        let run = try TestSupport.run(["validate", "flags/production.json", "flags/staging.json"])
        #expect(run.status == 0)
        #expect(run.stdout == "flags/production.json: valid\nflags/staging.json: valid\n")
        #expect(run.stderr.isEmpty)
    }

    @Test func everyProblemWithItsPathAndExit1() throws {
        let directory = try TestSupport.directory(with: [
            "bad.json": #"{"flags": {"x": {"type": "boolean", "default": 3, "rules": [{"cohort": "nope", "value": true, "rollout": 140}]}}}"#,
            "broken.json": "{\"flags\": {\n  \"x\": tru }",
            "good.json": #"{"flags": {}}"#,
        ])
        let run = try TestSupport.run(["validate", "bad.json", "good.json", "broken.json"], in: directory)
        #expect(run.status == 1)
        #expect(run.stdout == """
        bad.json: /flags/x/default: must be of the flag's type boolean (got integer 3)
        bad.json: /flags/x/rules/0/cohort: unknown cohort "nope"
        bad.json: /flags/x/rules/0/rollout: must be between 0 and 100 (got 140)
        good.json: valid
        broken.json: /: malformed JSON at line 2, column 8: invalid literal, expected 'true'

        """)
    }

    @Test func unreadableFileIsTroubleButTheOthersAreStillChecked() throws {
        let directory = try TestSupport.directory(with: ["good.json": #"{"flags": {}}"#])
        let run = try TestSupport.run(["validate", "missing.json", "good.json", "."], in: directory)
        #expect(run.status == 2)
        #expect(run.stdout == "good.json: valid\n")
        #expect(run.stderr == """
        flagctl: cannot read missing.json: No such file or directory (open, errno 2)
        flagctl: cannot read .: Is a directory (read, errno 21)

        """)
    }

    @Test func standardInput() throws {
        let run = try TestSupport.run(["validate", "-"], input: #"{"flags": {"a": {"type": "string"}}}"#)
        #expect(run.status == 1)
        #expect(run.stdout == "-: /flags/a/default: is required\n")
    }

    @Test func usageErrorExits64WithTheUsageLine() throws {
        let run = try TestSupport.run(["validate"])
        #expect(run.status == 64)
        #expect(run.stdout.isEmpty)
        #expect(run.stderr == "flagctl: error: missing argument <file>\nUsage: flagctl validate <file>...\nSee 'flagctl validate --help'.\n")
    }

    @Test func help() throws {
        let run = try TestSupport.run(["validate", "--help"])
        #expect(run.status == 0)
        #expect(run.stdout.hasPrefix("OVERVIEW: Check flag documents and list every problem with its JSON path.\n"))
        #expect(run.stdout.contains("USAGE: flagctl validate <file>..."))
    }
}
