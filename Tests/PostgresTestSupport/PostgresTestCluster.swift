import Foundation
import FlagStore

/// A throw-away PostgreSQL cluster for the tests: `initdb` into a temp dir, `pg_ctl start` on a port of its own
/// with its unix socket in that dir (and a TCP listener on 127.0.0.1 only when asked: `tcp`), stopped when the test
/// process exits.
///
/// Never the machine's default cluster. The binaries come from Debian's `postgresql` package
/// (`/usr/lib/postgresql/<major>/bin`, newest first, or `$PG_BIN`); `./scripts/bootstrap` installs it. When they are
/// missing, `shared()` throws and every PostgreSQL test fails with that message: it never skips quietly.
///
/// PostgreSQL refuses to run as root and the tests run as root here and in CI: then the cluster's files belong to
/// the `postgres` system user (the package creates it) and its commands run through `runuser -u postgres`.
package final class PostgresTestCluster: Sendable {
    /// The cluster's directory: `data/` and the socket.
    package let directory: String
    /// The port in the socket's name (`.s.PGSQL.<port>`).
    package let port: Int
    /// The database superuser.
    package let user: String
    /// Whether the server also listens on 127.0.0.1:`port` (for `postgresql://127.0.0.1:port,...` URIs).
    package let tcp: Bool
    private let binaries: String
    private let runAs: String?

    /// A failure to find, create or start the cluster, with the command's output.
    package struct SetupError: Error, CustomStringConvertible {
        package let description: String
    }

    nonisolated(unsafe) private static var started: Result<PostgresTestCluster, SetupError>?
    private static let lock = NSLock()
    private static let counter = NSLock()
    nonisolated(unsafe) private static var databases = 0

    /// The process's one cluster, started at the first call.
    package static func shared() throws -> PostgresTestCluster {
        try lock.withLock {
            if started == nil {
                started = Result { () throws(SetupError) -> PostgresTestCluster in try PostgresTestCluster(settings: []) }
                if case .success(let cluster) = started {
                    stopAtExit = cluster
                    atexit { PostgresTestCluster.stopAtExit?.stop() }
                }
            }
            guard let started else { throw SetupError(description: "cluster start was not attempted") }
            return try started.get()
        }
    }

    nonisolated(unsafe) private static var stopAtExit: PostgresTestCluster?

    /// A cluster of its own (not the shared one; stop it with `stop()`): `settings` are extra `-c` options,
    /// `standbyOf` makes it a streaming standby of that cluster (`pg_basebackup -R`) instead of a new primary, `tcp`
    /// adds a listener on 127.0.0.1 (on a port the kernel found free just before; another process taking it in between
    /// would fail the start, loudly).
    package init(settings: [String] = [], standbyOf primary: PostgresTestCluster? = nil, tcp: Bool = false) throws(SetupError) {
        binaries = try Self.findBinaries()
        let isRoot = getuid() == 0
        runAs = isRoot ? "postgres" : nil
        user = isRoot ? "postgres" : (ProcessInfo.processInfo.environment["USER"] ?? "postgres")
        directory = "/tmp/flagstore-pg-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        self.tcp = tcp
        port = tcp ? try Self.freeLoopbackPort() : Int.random(in: 20_000...60_000)
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        } catch {
            throw SetupError(description: "cannot create \(directory): \(error)")
        }
        if let runAs {
            try run("/usr/bin/chown", [runAs, directory], asUser: nil)
        }
        if let primary {
            // A copy of the primary that follows it (standby.signal and primary_conninfo written by -R).
            try run(binaries + "/pg_basebackup", ["-D", directory + "/data", "-h", primary.directory, "-p", String(primary.port),
                                                  "-U", primary.user, "-R", "-X", "stream", "--no-sync", "--checkpoint=fast"], asUser: runAs)
        } else {
            try run(binaries + "/initdb", ["-D", directory + "/data", "-U", user, "-A", "trust", "--no-locale", "-E", "UTF8",
                                           "--no-sync"], asUser: runAs)
        }
        // No TCP unless asked (listen_addresses ''), the socket here; fsync off: a test cluster need not survive power loss.
        let listen = tcp ? "127.0.0.1" : ""
        let options = (["-k \(directory) -p \(port) -c listen_addresses='\(listen)' -c fsync=off -c max_connections=300"]
            + settings.map { "-c \($0)" }).joined(separator: " ")
        try run(binaries + "/pg_ctl", ["-D", directory + "/data", "-l", directory + "/log", "-w", "-t", "60",
                                       "-o", options, "start"], asUser: runAs)
    }

    /// A TCP port on 127.0.0.1 that nothing listens on now (the kernel's choice for port 0).
    private static func freeLoopbackPort() throws(SetupError) -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw SetupError(description: "socket: errno \(errno)") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
                bind(fd, generic, length) == 0 && getsockname(fd, generic, &length) == 0
            }
        }
        guard bound else { throw SetupError(description: "cannot find a free port on 127.0.0.1: errno \(errno)") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// The postmaster's process id (the first line of `postmaster.pid`), for `kill -9` in failover tests.
    package func postmasterPID() throws -> pid_t {
        let text = try String(contentsOfFile: directory + "/data/postmaster.pid", encoding: .utf8)
        guard let line = text.split(separator: "\n").first, let pid = pid_t(line) else {
            throw SetupError(description: "no pid in \(directory)/data/postmaster.pid")
        }
        return pid
    }

    /// Kills the whole server at once, as when its machine dies: the postmaster and every child (backends,
    /// walsenders) with SIGKILL. Killing the postmaster alone leaves its backends serving their sessions for a while.
    package func killHard() throws {
        for pid in try processIDs() { kill(pid, SIGKILL) }
    }

    /// Stops every process of the server (SIGSTOP), as when it hangs rather than dies: its sockets stay open and
    /// connects are queued by the kernel, but nothing answers. `thaw()` continues them.
    package func freeze() throws {
        for pid in try processIDs() { kill(pid, SIGSTOP) }
    }

    /// Continues every process `freeze()` stopped (SIGCONT).
    package func thaw() throws {
        for pid in try processIDs() { kill(pid, SIGCONT) }
    }

    /// Promotes a standby to primary (`pg_ctl promote`, waiting until it takes writes).
    package func promote() throws {
        try run(binaries + "/pg_ctl", ["-D", directory + "/data", "-w", "-t", "60", "promote"], asUser: runAs)
    }

    /// A URI for database `name` on this cluster (over the unix socket), with `connect_timeout` (seconds) 10: what a
    /// test's connect waits on is the machine's load (several test processes, other builds, two cores), never a host
    /// that is gone, and flagserver's 3 s default once failed a connect under that load (tests of the default build
    /// URIs of their own).
    package func uri(database name: String, connectTimeout: Int = 10) -> String {
        "postgresql:///\(name)?host=\(directory)&port=\(port)&user=\(user)&connect_timeout=\(connectTimeout)"
    }

    /// The processes of this server: the postmaster and its children (backends, walsenders, background workers).
    package func processIDs() throws -> [pid_t] {
        let postmaster = try postmasterPID()
        var all = [postmaster]
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
            guard let pid = pid_t(entry), let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")") else { continue }
            // Fields after "(comm)": state, ppid, ...
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            if fields.count > 1, pid_t(fields[1]) == postmaster { all.append(pid) }
        }
        return all
    }

    /// The client backends serving database `name` (their command line is `postgres: user name ...`).
    package func backendIDs(database name: String) throws -> [pid_t] {
        try processIDs().dropFirst().filter { pid in
            let line = (try? String(contentsOfFile: "/proc/\(pid)/cmdline", encoding: .utf8)) ?? ""
            return line.hasPrefix("postgres: \(user) \(name) ")
        }
    }

    /// Creates a fresh, empty database and returns its URI.
    package func createDatabase() throws -> String {
        let number = Self.counter.withLock { Self.databases += 1; return Self.databases }
        let name = "t\(getpid())_\(number)"
        try psql("CREATE DATABASE \(name)")
        return uri(database: name)
    }

    /// Runs SQL as the superuser on database `database` (test set-up: CREATE DATABASE, DROP TRIGGER, ...).
    package func psql(_ sql: String, database: String = "postgres") throws {
        let connection = try Database(postgres: uri(database: database))
        defer { connection.close() }
        try connection.execute(sql)
    }

    /// Stops the cluster at once and removes its files (from `atexit`: system(3), no Foundation machinery).
    package func stop() {
        let stop = "\(binaries)/pg_ctl -D \(directory)/data -m immediate -w stop >/dev/null 2>&1"
        _ = system(runAs.map { "/usr/sbin/runuser -u \($0) -- \(stop)" } ?? stop)
        _ = system("rm -rf \(directory)")
    }

    private static func findBinaries() throws(SetupError) -> String {
        if let configured = ProcessInfo.processInfo.environment["PG_BIN"] {
            return configured
        }
        let root = "/usr/lib/postgresql"
        let majors = ((try? FileManager.default.contentsOfDirectory(atPath: root)) ?? [])
            .compactMap(Int.init).sorted(by: >)
        for major in majors where FileManager.default.isExecutableFile(atPath: "\(root)/\(major)/bin/initdb") {
            return "\(root)/\(major)/bin"
        }
        throw SetupError(description: "PostgreSQL server binaries not found (no \(root)/<major>/bin/initdb, no $PG_BIN): "
                         + "install Debian's postgresql package (./scripts/bootstrap does)")
    }

    /// Runs a command (as `asUser` through runuser(1)) with its output in a file, and waits for it with
    /// waitpid(2). Not Foundation's `Process`: on Linux it learns of the child's exit through a descriptor the
    /// child inherits, and `pg_ctl start` leaves the server running with it, so the wait would never end.
    @discardableResult
    private func run(_ executable: String, _ arguments: [String], asUser: String?) throws(SetupError) -> String {
        let argv = asUser.map { ["/usr/sbin/runuser", "-u", $0, "--", executable] } ?? [executable]
        let command = argv + arguments
        let outputPath = directory + "/command-\(UInt32.random(in: 0...UInt32.max)).out"
        defer { unlink(outputPath) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        let cArguments = command.map { strdup($0) } + [nil]
        defer { for argument in cArguments { free(argument) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, command[0], &actions, nil, cArguments, environ)
        guard spawned == 0 else {
            throw SetupError(description: "cannot run \(command[0]): \(String(cString: strerror(spawned)))")
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        let text = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
        // WIFEXITED && WEXITSTATUS == 0, spelled out (the macros are not imported).
        guard status & 0x7f == 0, (status >> 8) & 0xff == 0 else {
            throw SetupError(description: "\(command.joined(separator: " ")) failed (status \(status)): \(text)")
        }
        return text
    }
}
