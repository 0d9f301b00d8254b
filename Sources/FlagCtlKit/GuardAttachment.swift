import CommandLineKit
import FlagKit

/// `--guard FILE` on `publish`, `set` and `schedule`: the file is read and checked before anything is sent, and its
/// guards are added to what the command made, the published version, or the change (a change request when the
/// change touches a protected flag, a schedule), so a guard never misses the start of its window.
enum GuardAttachment {
    /// `--guard FILE`.
    static let option = Option<String>("guard", valueName: "file",
                                       help: "Add this guard file's guards to the version or change this makes (docs/guards.md).")

    /// The file's guards, or none without the option; invalid is a `CommandFailure` before anything is sent.
    static func load(_ file: String?) throws(CommandFailure) -> [GuardRequest] {
        guard let file else { return [] }
        return try GuardFile.load(file)
    }

    /// Adds `requests` to `target` and prints each; nil when all were added, else the exit status after saying what was
    /// made without its guard and how to add it.
    static func attach(_ requests: [GuardRequest], from file: String?, to target: ServerClient.GuardTarget, environment: String,
                       client: ServerClient, _ context: RunContext) -> Int32? {
        guard let file else { return nil }
        for request in requests {
            do throws(ServerError) {
                let added = try client.addGuard(environment, to: target, request)
                context.print(GuardRendering.added(added, environment: environment))
            } catch {
                context.error("\(environment) \(target) was made, but the guards of \(file) were not all added: \(error)")
                context.error("add them: flagctl guard add \(environment) \(flag(target)) --file \(file)")
                return ExitStatus.trouble
            }
        }
        return nil
    }

    /// A command that made nothing says that no guard was added (there is no new version to watch).
    static func nothingMade(_ file: String?, _ context: RunContext) {
        if let file { context.print("no guard added from \(file): nothing new was published") }
    }

    /// `--change 12`, `--version 43`.
    static func flag(_ target: ServerClient.GuardTarget) -> String {
        switch target {
        case .change(let id): "--change \(id)"
        case .version(let number): "--version \(number)"
        }
    }
}
