#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The C `read`, reachable where `POSIXFile.read(path:limit:)` shadows it (Glibc or Darwin alike).
private func systemRead(_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    read(fd, buffer, count)
}

/// Every raw file system call of the module, kept together: bounded reads and crash-safe atomic replacement.
enum POSIXFile {
    /// Why a file could not be read as a whole.
    enum ReadProblem: Error, Equatable {
        /// Nothing at that path.
        case missing
        /// Something other than a regular file (a directory, a socket, ...).
        case notARegularFile
        /// Larger than the caller's limit.
        case tooLarge(size: Int)
        /// A system call failed with this errno.
        case failed(call: String, errno: Int32)
    }

    /// Reads a whole regular file of at most `limit` bytes. A file that shrinks while being read returns what was there.
    static func read(path: String, limit: Int) -> Result<[UInt8], ReadProblem> {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            let code = errno
            return .failure(code == ENOENT || code == ENOTDIR ? .missing : .failed(call: "open", errno: code))
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { return .failure(.failed(call: "fstat", errno: errno)) }
        guard (info.st_mode & S_IFMT) == S_IFREG else { return .failure(.notARegularFile) }
        let size = Int(info.st_size)
        guard size <= limit else { return .failure(.tooLarge(size: size)) }
        // One byte more than announced: a file that grew is read up to the limit check below, never unbounded.
        var bytes = [UInt8](repeating: 0, count: size + 1)
        var filled = 0
        while filled < bytes.count {
            let count = bytes.withUnsafeMutableBytes { systemRead(fd, $0.baseAddress.map { $0 + filled }, $0.count - filled) }
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else { return .failure(.failed(call: "read", errno: errno)) }
            if count == 0 { break }
            filled += count
        }
        guard filled <= limit else { return .failure(.tooLarge(size: filled)) }
        bytes.removeSubrange(filled...)
        return .success(bytes)
    }

    /// Replaces `directory/name` with `bytes` so that a crash at any moment leaves either the old or the new file:
    /// write a temporary file in the same directory, `fsync` it, `rename` it over the target (atomic on POSIX),
    /// then `fsync` the directory so the rename itself is durable. On failure the temporary file is removed
    /// and the old file is untouched.
    static func replaceAtomically(directory: String, name: String, bytes: [UInt8]) -> (call: String, errno: Int32)? {
        let target = directory + "/" + name
        let temporary = directory + "/." + name + ".tmp-\(getpid())-\(UInt64.random(in: 0...UInt64.max))"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return ("open", errno) }
        var problem: (call: String, errno: Int32)?
        var offset = 0
        while offset < bytes.count {
            let count = bytes.withUnsafeBytes { write(fd, $0.baseAddress.map { $0 + offset }, $0.count - offset) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { problem = ("write", count < 0 ? errno : EIO); break }
            offset += count
        }
        if problem == nil, fsync(fd) != 0 { problem = ("fsync", errno) }
        // close can report a deferred write error (e.g. on NFS); it counts.
        if close(fd) != 0, problem == nil { problem = ("close", errno) }
        if problem == nil, rename(temporary, target) != 0 { problem = ("rename", errno) }
        if let problem {
            unlink(temporary)
            return problem
        }
        return syncDirectory(directory)
    }

    /// `fsync` on the directory makes a completed rename survive a power cut.
    private static func syncDirectory(_ directory: String) -> (call: String, errno: Int32)? {
        let fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return ("open directory", errno) }
        defer { close(fd) }
        // Some file systems refuse fsync on a directory (EINVAL); the rename already happened, so that is fine.
        if fsync(fd) != 0, errno != EINVAL { return ("fsync directory", errno) }
        return nil
    }

    /// Removes a file; a missing file is not an error.
    static func remove(path: String) -> (call: String, errno: Int32)? {
        if unlink(path) != 0, errno != ENOENT { return ("unlink", errno) }
        return nil
    }

    /// Removes an empty directory (`rmdir`); anything else at `path` stays.
    static func removeEmptyDirectory(path: String) -> (call: String, errno: Int32)? {
        rmdir(path) == 0 ? nil : ("rmdir", errno)
    }

    /// Creates `path` and its missing parents with mode 0700; an existing directory is fine.
    static func makeDirectories(_ path: String) -> (call: String, errno: Int32)? {
        var prefix = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/") {
            prefix += "/" + component
            if mkdir(prefix, 0o700) != 0 {
                let code = errno
                guard code == EEXIST else { return ("mkdir", code) }
            }
        }
        var info = stat()
        guard stat(path, &info) == 0 else { return ("stat", errno) }
        return (info.st_mode & S_IFMT) == S_IFDIR ? nil : ("mkdir", ENOTDIR)
    }

    /// The text of an errno value.
    static func describe(_ code: Int32) -> String {
        String(cString: strerror(code))
    }
}
