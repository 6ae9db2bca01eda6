// Support/: what every stage shares: Syscalls (the only file that calls libc), buffers, escaping,
// dates, key conversion.

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The only place in the package that calls libc, in the style of swift-system: `open`, `read`,
/// `write`, `close`, `stat`, `poll`; `realloc` for growable buffers; `pthread_create` for the
/// parsing thread and pthread mutexes and conditions for ``ConditionLock``; `ftruncate`,
/// `fdatasync`, `rename`, `flock`, `mkdir`, `lstat`, `pread` and `unlink` for the download cache and `yajl split`; `isatty`,
/// `fflush` before writing to descriptor 1; `atexit` for writers left unfinished; `nanosleep` and
/// `exit` for the tool and the HTTP
/// source's waits. Every call that can fail is
/// retried on `EINTR` in one helper, and `errno` becomes a ``JSONIOError`` naming the operation and
/// its target.
package enum Syscalls {
    /// The text of an `errno` value (`No space left on device`).
    package static func message(forErrno code: Int32) -> String {
        guard let text = strerror(code) else { return "errno \(code)" }
        return String(cString: text)
    }

    /// Runs `call` until it does not fail with `EINTR`; a failure becomes a ``JSONIOError``.
    @inline(__always)
    private static func retryingOnInterrupt(
        _ operation: JSONIOError.Operation,
        _ target: @autoclosure () -> String,
        _ call: () -> Int
    ) throws(JSONIOError) -> Int {
        while true {
            let result = call()
            if result >= 0 { return result }
            let code = errno
            if code == EINTR { continue }
            throw JSONIOError(operation: operation, target: target(), message: message(forErrno: code), errno: code)
        }
    }

    /// Opens `path` for reading (close-on-exec).
    package static func openForReading(_ path: String) throws(JSONIOError) -> Int32 {
        Int32(try retryingOnInterrupt(.open, path) { Int(open(path, O_RDONLY | O_CLOEXEC)) })
    }

    /// Whether `path` names a regular file (following symbolic links): one that reads the same
    /// bytes each time it is opened, unlike a pipe, a FIFO or a device such as `/dev/stdin`.
    package static func isRegularFile(_ path: String) -> Bool {
        status(atPath: path)?.isRegularFile ?? false
    }

    /// Creates (or truncates) `path` for writing (close-on-exec, mode 0644).
    package static func createForWriting(_ path: String) throws(JSONIOError) -> Int32 {
        Int32(
            try retryingOnInterrupt(.create, path) { Int(open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)) }
        )
    }

    /// One `read(2)` into `buffer`; 0 at the end of the input.
    package static func read(
        _ fd: Int32,
        into buffer: UnsafeMutableRawBufferPointer,
        target: @autoclosure () -> String
    ) throws(JSONIOError) -> Int {
        guard buffer.count > 0 else { return 0 }
        return try retryingOnInterrupt(.read, target()) { systemRead(fd, buffer.baseAddress, buffer.count) }
    }

    /// Waits until `fd` has bytes (or its end) to read, waking every tenth of a second to check
    /// `interruption`; `false` when it was set. A regular file is readable at once.
    package static func waitUntilReadable(
        _ fd: Int32,
        interruption: ReadInterruption,
        target: @autoclosure () -> String
    ) throws(JSONIOError) -> Bool {
        var request = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        while !interruption.isSet {
            let ready = try retryingOnInterrupt(.read, target()) { Int(poll(&request, 1, 100)) }
            if ready > 0 { return true }
        }
        return false
    }

    /// Hands what the C `stdout` stream buffers (Swift's `print`) to its descriptor, so that
    /// bytes written to descriptor 1 directly come after what was printed before them.
    /// (`fflush(NULL)`, every output stream: the `stdout` global is not concurrency-safe.)
    package static func flushStandardOutputStream() {
        fflush(nil)
    }

    /// Writes all of `bytes` to `fd`, looping over short writes.
    package static func writeAll(
        _ fd: Int32,
        _ bytes: UnsafeRawBufferPointer,
        target: @autoclosure () -> String
    ) throws(JSONIOError) {
        var offset = 0
        while offset < bytes.count {
            let base = bytes.baseAddress! + offset
            let remaining = bytes.count - offset
            offset += try retryingOnInterrupt(.write, target()) { systemWrite(fd, base, remaining) }
        }
    }

    /// Opens the existing file `path` for reading and writing, never through a symbolic link
    /// (`O_NOFOLLOW`, close-on-exec): a download cache's files, whose names are predictable.
    package static func openExistingForUpdate(_ path: String) throws(JSONIOError) -> Int32 {
        Int32(try retryingOnInterrupt(.open, path) { Int(open(path, O_RDWR | O_NOFOLLOW | O_CLOEXEC)) })
    }

    /// Creates `path`, which must not exist (`O_EXCL`: not even as a symbolic link), for reading
    /// and writing, mode 0600, close-on-exec.
    package static func createExclusively(_ path: String) throws(JSONIOError) -> Int32 {
        Int32(
            try retryingOnInterrupt(.create, path) {
                Int(open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600))
            }
        )
    }

    /// What `fstat` (or, for a path, `lstat`: a link is not followed) says about a file.
    package struct FileStatus: Equatable {
        package var isRegularFile: Bool
        package var isDirectory: Bool
        package var isSymbolicLink: Bool
        package var ownedByCurrentUser: Bool
        package var links: Int
        package var size: Int
        /// Permission bits (`0o700`).
        package var permissions: Int
        /// The file's identity: its device and inode.
        package var device: UInt64
        package var inode: UInt64

        init(_ info: stat) {
            let type = info.st_mode & S_IFMT
            isRegularFile = type == S_IFREG
            isDirectory = type == S_IFDIR
            isSymbolicLink = type == S_IFLNK
            ownedByCurrentUser = info.st_uid == getuid()
            links = Int(info.st_nlink)
            size = Int(info.st_size)
            permissions = Int(info.st_mode & 0o7777)
            device = UInt64(info.st_dev)
            inode = UInt64(info.st_ino)
        }
    }

    /// The status of the open file `fd`.
    package static func status(of fd: Int32, target: @autoclosure () -> String) throws(JSONIOError) -> FileStatus {
        var info = stat()
        _ = try retryingOnInterrupt(.open, target()) { Int(fstat(fd, &info)) }
        return FileStatus(info)
    }

    /// The status of `path` itself (a symbolic link is described, not followed); `nil` when it
    /// does not exist or cannot be read.
    package static func linkStatus(atPath path: String) -> FileStatus? {
        var info = stat()
        guard (try? retryingOnInterrupt(.open, path, { Int(lstat(path, &info)) })) != nil else { return nil }
        return FileStatus(info)
    }

    /// The status of `path`, following links; `nil` when it does not exist or cannot be read.
    package static func status(atPath path: String) -> FileStatus? {
        var info = stat()
        guard (try? retryingOnInterrupt(.open, path, { Int(stat(path, &info)) })) != nil else { return nil }
        return FileStatus(info)
    }

    /// Creates the directory `path` with mode 0700 (no parents). One that exists already is
    /// fine, unless `mustBeNew` (then the directory is this process's own, or this throws).
    package static func makePrivateDirectory(_ path: String, mustBeNew: Bool = false) throws(JSONIOError) {
        while mkdir(path, 0o700) != 0 {
            let code = errno
            if code == EINTR { continue }
            if code == EEXIST && !mustBeNew { return }
            throw JSONIOError(operation: .create, target: path, message: message(forErrno: code), errno: code)
        }
    }

    /// Whether `error` says something is there already (`EEXIST`).
    package static func meansExisting(_ error: JSONIOError) -> Bool { error.errno == EEXIST }

    /// Whether `error` says the file does not exist (`ENOENT`).
    package static func meansMissing(_ error: JSONIOError) -> Bool { error.errno == ENOENT }

    /// Whether `error` says an `O_NOFOLLOW` open met a symbolic link (`ELOOP`).
    package static func meansSymbolicLink(_ error: JSONIOError) -> Bool { error.errno == ELOOP }

    /// This process's ID, for temporary names.
    package static var processID: Int32 { getpid() }

    /// Removes the directory entry `path` (a symbolic link itself, never what it points at).
    package static func unlinkFile(_ path: String) {
        _ = unlink(path)
    }

    /// One `pread(2)` at `offset` into `buffer`; 0 at the end of the file.
    package static func read(
        _ fd: Int32,
        into buffer: UnsafeMutableRawBufferPointer,
        at offset: Int,
        target: @autoclosure () -> String
    ) throws(JSONIOError) -> Int {
        try retryingOnInterrupt(.read, target()) { pread(fd, buffer.baseAddress, buffer.count, off_t(offset)) }
    }

    /// Cuts (or extends) the file `fd` to `length` bytes and moves its offset to the end.
    package static func truncate(_ fd: Int32, to length: Int, target: @autoclosure () -> String) throws(JSONIOError) {
        _ = try retryingOnInterrupt(.write, target()) { Int(ftruncate(fd, off_t(length))) }
        _ = try retryingOnInterrupt(.write, target()) { Int(lseek(fd, off_t(length), SEEK_SET)) }
    }

    /// The size of the file `fd`.
    package static func size(of fd: Int32, target: @autoclosure () -> String) throws(JSONIOError) -> Int {
        var info = stat()
        _ = try retryingOnInterrupt(.read, target()) { Int(fstat(fd, &info)) }
        return Int(info.st_size)
    }

    /// The size of the file at `path` (following links), or `nil` when it cannot be read with
    /// `stat` (missing, no permission). Not `FileManager.attributesOfItem`: its `.size` is a `UInt`
    /// under FoundationEssentials and an `Int` only when Foundation's bridging is linked in.
    package static func fileSize(atPath path: String) -> Int? {
        status(atPath: path)?.size
    }

    /// Writes what the file `fd` holds through to the disk (`fdatasync`).
    package static func syncData(_ fd: Int32, target: @autoclosure () -> String) throws(JSONIOError) {
        #if canImport(Darwin)
        _ = try retryingOnInterrupt(.write, target()) { Int(fsync(fd)) }
        #else
        _ = try retryingOnInterrupt(.write, target()) { Int(fdatasync(fd)) }
        #endif
    }

    /// Renames `from` to `to`, replacing it (atomic within one file system).
    package static func rename(_ from: String, to: String) throws(JSONIOError) {
        _ = try retryingOnInterrupt(.write, to) { Int(systemRename(from, to)) }
    }

    /// Takes an exclusive advisory lock on `fd` without waiting; `false` when another process
    /// holds it. Released when `fd` is closed (or the process ends).
    package static func lockExclusively(_ fd: Int32) -> Bool {
        while true {
            if flock(fd, LOCK_EX | LOCK_NB) == 0 { return true }
            if errno != EINTR { return false }
        }
    }

    /// Closes `fd`, ignoring errors (a descriptor opened for reading has nothing to lose).
    package static func close(_ fd: Int32) {
        _ = systemClose(fd)
    }

    /// Resizes a `malloc` block to `byteCount` bytes, keeping its contents: a large block is
    /// remapped rather than copied, so growing a buffer never holds two copies of it. Stops the
    /// process when memory is exhausted, as Swift's own allocations do.
    package static func reallocate(_ block: UnsafeMutableRawPointer?, byteCount: Int) -> UnsafeMutableRawPointer {
        guard let grown = realloc(block, max(1, byteCount)) else {
            fatalError("out of memory growing a buffer to \(byteCount) bytes")
        }
        return grown
    }

    /// Frees a block from ``reallocate(_:byteCount:)``.
    package static func free(_ block: UnsafeMutableRawPointer) {
        systemFree(block)
    }

    /// Runs `body` on a new detached POSIX thread with a stack of `stackSize` bytes; `false` if
    /// no thread could be created (the body is then released unrun). The body takes over what it
    /// captures: the starting thread must not touch it afterwards except through synchronization.
    package static func startDetachedThread(stackSize: Int, _ body: @escaping () -> Void) -> Bool {
        final class Box: @unchecked Sendable {
            let body: () -> Void
            init(_ body: @escaping () -> Void) { self.body = body }
        }
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        pthread_attr_setstacksize(&attributes, stackSize)
        let context = Unmanaged.passRetained(Box(body)).toOpaque()
        #if canImport(Darwin)
        var thread: pthread_t?
        #else
        var thread = pthread_t()
        #endif
        let status = pthread_create(
            &thread,
            &attributes,
            { context in
                Unmanaged<Box>.fromOpaque(context!).takeRetainedValue().body()
                return nil
            },
            context
        )
        guard status == 0 else {
            Unmanaged<Box>.fromOpaque(context).release()
            return false
        }
        return true
    }

    /// Whether `fd` is a terminal.
    package static func isTerminal(_ fd: Int32) -> Bool { isatty(fd) != 0 }

    /// Ends the process with `status` (after C's `atexit` handlers and stdio flushing).
    package static func exit(_ status: Int32) -> Never { systemExit(status) }

    /// Runs `handler` when the process exits normally (`atexit`: a return from `main` or
    /// `exit()`, not a crash or a signal).
    package static func atExit(_ handler: @convention(c) () -> Void) { _ = atexit(handler) }

    /// Sleeps for `seconds` (at most; a signal may end it early, which callers polling a flag
    /// do not mind).
    package static func sleep(seconds: Double) {
        guard seconds > 0 else { return }
        let whole = seconds.rounded(.down)
        var request = timespec(tv_sec: Int(whole), tv_nsec: Int((seconds - whole) * 1e9))
        _ = nanosleep(&request, nil)
    }

    /// A new, initialized mutex and condition variable; free them with ``destroyCondition(_:_:)``.
    package static func makeCondition() -> (UnsafeMutablePointer<pthread_mutex_t>, UnsafeMutablePointer<pthread_cond_t>)
    {
        let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
        precondition(
            pthread_mutex_init(mutex, nil) == 0 && pthread_cond_init(condition, nil) == 0,
            "pthread init failed"
        )
        return (mutex, condition)
    }

    /// Destroys and frees what ``makeCondition()`` made.
    package static func destroyCondition(
        _ mutex: UnsafeMutablePointer<pthread_mutex_t>,
        _ condition: UnsafeMutablePointer<pthread_cond_t>
    ) {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    /// Locks `mutex` (never fails for a default mutex used correctly).
    @inline(__always)
    package static func lock(_ mutex: UnsafeMutablePointer<pthread_mutex_t>) { pthread_mutex_lock(mutex) }

    /// Unlocks `mutex`.
    @inline(__always)
    package static func unlock(_ mutex: UnsafeMutablePointer<pthread_mutex_t>) { pthread_mutex_unlock(mutex) }

    /// Waits on `condition`, releasing `mutex` meanwhile (may wake spuriously: callers loop).
    package static func wait(
        _ condition: UnsafeMutablePointer<pthread_cond_t>,
        _ mutex: UnsafeMutablePointer<pthread_mutex_t>
    ) { pthread_cond_wait(condition, mutex) }

    /// Waits on `condition` at most `seconds`, releasing `mutex` meanwhile.
    package static func wait(
        _ condition: UnsafeMutablePointer<pthread_cond_t>,
        _ mutex: UnsafeMutablePointer<pthread_mutex_t>,
        seconds: Double
    ) {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let nanoseconds = Int(now.tv_nsec) + Int(seconds * 1e9)
        var deadline = timespec(tv_sec: now.tv_sec + nanoseconds / 1_000_000_000, tv_nsec: nanoseconds % 1_000_000_000)
        _ = pthread_cond_timedwait(condition, mutex, &deadline)
    }

    /// Wakes one waiter of `condition`.
    package static func signal(_ condition: UnsafeMutablePointer<pthread_cond_t>) { pthread_cond_signal(condition) }

    /// Wakes every waiter of `condition`.
    package static func broadcast(_ condition: UnsafeMutablePointer<pthread_cond_t>) {
        pthread_cond_broadcast(condition)
    }

    /// The name of a descriptor in messages: `standard output`, `standard error`, `stdin`, `fd N`.
    package static func name(ofDescriptor fd: Int32) -> String {
        switch fd {
        case 0: return "stdin"
        case 1: return "standard output"
        case 2: return "standard error"
        default: return "fd \(fd)"
        }
    }
}

#if canImport(Glibc)
private let systemRead = Glibc.read
private let systemWrite = Glibc.write
private let systemClose = Glibc.close
private let systemFree = Glibc.free
private let systemRename = Glibc.rename
private let systemExit = Glibc.exit
#elseif canImport(Musl)
private let systemRead = Musl.read
private let systemWrite = Musl.write
private let systemClose = Musl.close
private let systemFree = Musl.free
private let systemRename = Musl.rename
private let systemExit = Musl.exit
#else
private let systemRead = Darwin.read
private let systemWrite = Darwin.write
private let systemClose = Darwin.close
private let systemFree = Darwin.free
private let systemRename = Darwin.rename
private let systemExit = Darwin.exit
#endif
