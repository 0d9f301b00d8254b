import Testing
@testable import CommandLineKit

/// How options read in usage lines and help, and which words spell them.
@Suite struct OptionSpecTests {
    @Test func synopsisUsageItemAndHelpText() {
        let message = Option<String>("message", valueName: "text", short: "m", help: "Why.").spec
        #expect(message.synopsis == "-m, --message <text>" && message.usageItem == "[-m, --message <text>]")
        let context = Option<String>("context", valueName: "key=value", help: "", repeatable: true).spec
        #expect(context.synopsis == "--context <key=value> ...")
        let target = Option<String>("to", valueName: "file", help: "", required: true).spec
        #expect(target.usageItem == "--to <file>")
        #expect(Switch("strict", help: "Be strict.", environment: "STRICT").spec.helpText == "Be strict. (env: STRICT=1)")
        #expect(Option<String>("host", valueName: "a", help: "Host.", environment: "HOST").spec.helpText == "Host. (env: HOST)")
    }

    @Test func spelling() {
        let message = Option<String>("message", valueName: "text", short: "m", help: "").spec
        #expect(message.isSpelled(by: "--message") && message.isSpelled(by: "--message=x") && message.isSpelled(by: "-m"))
        #expect(!message.isSpelled(by: "--messages") && !message.isSpelled(by: "-m=x") && !message.isSpelled(by: "-x") && !message.isSpelled(by: "m"))
    }
}
