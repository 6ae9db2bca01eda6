/// A source that can be read again from its start, as a separate copy: bytes in memory, or a
/// regular file not yet opened. ``JSONParser/validate(_:options:)`` reads such a source a second
/// time only when its first, lean pass finds something wrong, to locate the error exactly.
///
/// `JSONParser.restartableCopy(of:)` casts to each conforming type by name (a cast to the protocol
/// would cost a scan of every conformance record at startup): a new conformer is added there too.
protocol RestartableByteSource: JSONByteSource {
    /// A copy that reads the same bytes from the start, independently of `self`; `nil` when
    /// that cannot be promised (the source was already read from, or is not a regular file).
    func restartableCopy() -> Self?
}

extension MemoryByteSource: RestartableByteSource {
    func restartableCopy() -> MemoryByteSource? { hasStarted ? nil : self }
}

extension FileByteSource: RestartableByteSource {
    func restartableCopy() -> FileByteSource? {
        // A FIFO or /dev/stdin would give its bytes to the first reader only.
        hasStarted || !Syscalls.isRegularFile(path) ? nil : self
    }
}
