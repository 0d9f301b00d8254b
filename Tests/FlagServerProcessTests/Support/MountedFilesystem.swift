import FlagServiceTestSupport
import Foundation
import Glibc
import TestSupport

/// A real filesystem mounted for a test: a small tmpfs (to fill up) or a loop-mounted ext4 image with
/// `errors=remount-ro` (which the kernel turns read-only when told of an error). Needs root and mount(8);
/// `available` says whether this machine can, so tests that need one are skipped with that reason.
final class MountedFilesystem: @unchecked Sendable {
    let mountPoint: String
    let image: String?

    private init(mountPoint: String, image: String?) {
        self.mountPoint = mountPoint
        self.image = image
    }

    /// Whether a tmpfs can be mounted here (root with CAP_SYS_ADMIN, mount(8) present).
    static let available: Bool = {
        guard geteuid() == 0, FileManager.default.isExecutableFile(atPath: "/usr/sbin/mkfs.ext4") else { return false }
        guard let filesystem = try? tmpfs(kibibytes: 64) else { return false }
        filesystem.unmount()
        return true
    }()

    /// A tmpfs of `kibibytes`.
    static func tmpfs(kibibytes: Int) throws -> MountedFilesystem {
        let point = try makeTemporaryDirectory()
        try run("/usr/bin/mount", ["-t", "tmpfs", "-o", "size=\(kibibytes)k", "tmpfs", point])
        return MountedFilesystem(mountPoint: point, image: nil)
    }

    /// An ext4 file system of `mebibytes` in an image file, loop-mounted with `errors=remount-ro`.
    static func ext4(mebibytes: Int) throws -> MountedFilesystem {
        let directory = try makeTemporaryDirectory()
        let image = directory + "/ext4.img"
        let point = directory + "/mnt"
        try FileManager.default.createDirectory(atPath: point, withIntermediateDirectories: true)
        try run("/usr/bin/dd", ["if=/dev/zero", "of=\(image)", "bs=1M", "count=\(mebibytes)", "status=none"])
        try run("/usr/sbin/mkfs.ext4", ["-q", "-F", image])
        try run("/usr/bin/mount", ["-o", "loop,errors=remount-ro", image, point])
        return MountedFilesystem(mountPoint: point, image: image)
    }

    /// The device the mount point is mounted from (`/dev/loop3`), from /proc/mounts.
    var device: String? {
        guard let mounts = try? String(contentsOfFile: "/proc/mounts", encoding: .utf8) else { return nil }
        for line in mounts.split(separator: "\n") {
            let fields = line.split(separator: " ")
            if fields.count > 1 && fields[1] == mountPoint { return String(fields[0]) }
        }
        return nil
    }

    /// Whether the file system is mounted read-only now (`ro`, or ext4's `emergency_ro` after an error).
    var isReadOnly: Bool {
        guard let mounts = try? String(contentsOfFile: "/proc/mounts", encoding: .utf8) else { return false }
        return mounts.split(separator: "\n").contains { line in
            let fields = line.split(separator: " ")
            return fields.count > 3 && fields[1] == mountPoint && fields[3].split(separator: ",").contains { $0 == "ro" || $0 == "emergency_ro" }
        }
    }

    /// The bytes an unprivileged writer may still use (statvfs(3)), for failure messages.
    var freeBytes: UInt64 {
        var info = statvfs()
        guard statvfs(mountPoint, &info) == 0 else { return 0 }
        return UInt64(info.f_bavail) * UInt64(info.f_frsize)
    }

    /// Reports an error to ext4 (`/sys/fs/ext4/DEV/trigger_fs_error`), as a failing disk would: with
    /// `errors=remount-ro` the kernel makes the file system read-only at once.
    func triggerExt4Error() throws {
        guard let device else { throw TestFailure("\(mountPoint) is not mounted") }
        let control = "/sys/fs/ext4/\((device as NSString).lastPathComponent)/trigger_fs_error"
        try Data("flagserver readiness test".utf8).write(to: URL(fileURLWithPath: control))
    }

    /// Fills the file system with one file until it is full; returns the file's path.
    func fill() throws -> String {
        let path = mountPoint + "/filler"
        // "e": O_CLOEXEC, so that no child another test spawns meanwhile inherits the file and keeps its space taken.
        guard let file = fopen(path, "we") else { throw TestFailure("cannot create \(path)") }
        defer { fclose(file) }
        let block = [UInt8](repeating: 0x78, count: 4096)
        while fwrite(block, 1, block.count, file) == block.count {}
        fflush(file)
        return path
    }

    /// Unmounts (lazily, so a process still holding a file cannot keep it) and removes the image.
    func unmount() {
        try? Self.run("/usr/bin/umount", ["-l", mountPoint])
        if let image { try? FileManager.default.removeItem(atPath: (image as NSString).deletingLastPathComponent) }
        try? FileManager.default.removeItem(atPath: mountPoint)
    }

    static func run(_ executable: String, _ arguments: [String]) throws {
        let status = try SpawnedProcess.run(executable, arguments)
        guard status == 0 else { throw TestFailure("\(executable) \(arguments) exited \(status)") }
    }
}
