import Foundation
import Glibc

/// A fresh directory under the system's temporary directory, removed with everything in it when the last reference
/// to it goes (or earlier by ``remove()``).
package final class TemporaryDirectory: Sendable {
    /// The directory.
    package let url: URL

    /// Creates a uniquely named directory.
    package init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("symi-tests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { remove() }

    /// The directory's path.
    package var path: String { url.path }

    /// A path inside the directory.
    package func file(_ name: String) -> String { path + "/" + name }

    /// Deletes the directory and everything in it.
    package func remove() {
        try? FileManager.default.removeItem(at: url)
    }

    /// Names of the entries in the directory, sorted.
    package func entries() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []).sorted()
    }

    /// Makes the directory refuse new entries, even for root (who ignores permission bits):
    /// `chattr +i` when running as root, mode 0500 otherwise. Returns the undo action.
    package func makeReadOnly() throws -> () -> Void {
        if geteuid() == 0 {
            try Self.run("/usr/bin/chattr", ["+i", url.path])
            return { [url] in try? Self.run("/usr/bin/chattr", ["-i", url.path]) }
        }
        try FileManager.default.setAttributes([.posixPermissions: 0o500], ofItemAtPath: url.path)
        return { [url] in try? FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: url.path) }
    }

    private static func run(_ executable: String, _ arguments: [String]) throws {
        let status = try SpawnedProcess.run(executable, arguments)
        guard status == 0 else { throw TestFailure("\(([executable] + arguments).joined(separator: " ")) exited with \(status)") }
    }
}

/// A fresh directory under the system's temporary directory, as a path the caller removes (tests that hand the
/// directory to a process or keep it past their scope).
package func makeTemporaryDirectory() throws -> String {
    let path = NSTemporaryDirectory() + "flagservice-tests-" + UUID().uuidString
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}
