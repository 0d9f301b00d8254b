import FlagClient
import Foundation

// The launch sequence of `AppFlags` as a command, so the example runs here as well as it compiles:
// `symi-app-example [server URL] [cache directory]` prints the launch values, refreshes once and prints again.
let arguments = CommandLine.arguments
let server = URL(string: arguments.count > 1 ? arguments[1] : "http://127.0.0.1:8080") ?? URL(fileURLWithPath: "/")
let directory = arguments.count > 2 ? URL(fileURLWithPath: arguments[2], isDirectory: true)
    : FileManager.default.temporaryDirectory.appendingPathComponent("symi-app-example", isDirectory: true)
let flags = AppFlags(baseURL: server, directory: directory,
                     app: AppContext(appVersion: "2.4.0", platform: "ios", locale: "de_DE", channel: "appstore"))
let launch = flags.startScreen(entitled: false)
print("transport: \(flags.client.configuration.transport)")
print("launch: source \(flags.client.source), intro card \(launch.showIntroCard), pdf export \(launch.pdfExportAvailable)")
let outcome = await flags.refresh()
let after = flags.startScreen(entitled: false)
print("refresh: \(outcome)")
print("now: source \(flags.client.source), intro card \(after.showIntroCard), pdf export \(after.pdfExportAvailable)")
