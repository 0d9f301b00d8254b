import CommandLineKit
import Testing
@testable import FlagServerCLI

/// The tool: which words name an admin command, and what serves; help.
@Suite struct FlagServerTests {
    @Test func adminCommandsByTheirWordsEverythingElseServes() {
        #expect(parsedCommand(["token", "list"]) is TokenCommand.List)
        #expect(parsedCommand(["--port", "80"]) is ServeCommand)
        #expect(parsedCommand([]) is ServeCommand)
        #expect(usageError(["serve"])?.message == "unexpected argument 'serve'")
        #expect(usageError(["--port", "0", "token", "list"])?.message == "unexpected argument 'token'")
    }

    @Test func helpNamesEveryOptionItsVariableAndEveryCommand() {
        let help = runMain(["--help"])
        #expect(help.status == 0)
        for word in ["--host", "--port", "--database", "--flags-dir", "--loops", "--log-level", "--require-read-token", "--trusted-proxy",
                     "FLAGSERVER_HOST", "FLAGSERVER_DATABASE", "FLAGSERVER_REQUIRE_READ_TOKEN=1", "--webhook-allow-network", "FLAGSERVER_WEBHOOK_ALLOW_NETWORK", "token create", "token list",
                     "token revoke", "backup", "check", "restore"] {
            #expect(help.stdout.contains(word), "\(word)")
        }
        #expect(runMain(["help", "token", "create"]).stdout.contains("USAGE: flagserver token create --name <name> --role <reader|writer|admin>"))
    }
}
