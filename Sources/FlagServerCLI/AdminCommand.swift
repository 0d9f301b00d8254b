import FlagKit
import CommandLineKit
import FlagStore
import Foundation

/// A `flagserver` command that works on the database file (`token create`, `backup`, `check`, ...): it opens the
/// store the tool's `--database` names, runs, and prints what it returns; a thrown `FlagStoreError` is one
/// `flagserver: error: ...` line on standard error and exit status 1.
public protocol AdminCommand: ParsableCommand where Context == FlagServerContext {
    /// Runs the command against `store`, recording `actor` in the audit log; returns the text to print.
    func run(store: FlagStore, actor: String) throws -> String
}

extension AdminCommand {
    /// Opens the database, runs, prints; 0, or 1 with the error on standard error.
    public func run(_ context: FlagServerContext) -> Int32 {
        let store: FlagStore
        let output: String
        do {
            store = try FlagStore.open(location: context.database)
        } catch {
            return context.fail("\(error)")
        }
        do {
            output = try run(store: store, actor: "flagserver-cli")
        } catch {
            store.close()
            return context.fail("\(error)")
        }
        store.close()
        context.stdout.write(output)
        return 0
    }
}
