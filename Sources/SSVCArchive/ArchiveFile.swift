@preconcurrency import Glibc

/// An open archive file read at offsets with `pread`, never by seeking, so
/// that reads need no shared position.
struct ArchiveFile {
    let descriptor: CInt
    let size: UInt64

    /// Fills `buffer` from `offset`, reading again after short reads and
    /// EINTR; returns how many bytes there were before the end of the file.
    func read(at offset: UInt64, into buffer: UnsafeMutableRawBufferPointer) throws(ZipError) -> Int {
        var done = 0
        while done < buffer.count {
            let (position, overflow) = offset.addingReportingOverflow(UInt64(done))
            guard !overflow, position <= UInt64(Int64.max) else { return done }
            let count = pread(descriptor, buffer.baseAddress! + done, buffer.count - done, off_t(position))
            if count < 0 {
                if errno == EINTR { continue }
                throw .system("cannot read the archive", code: errno)
            }
            if count == 0 { return done }
            done += count
        }
        return done
    }

    /// `count` bytes from `offset`, or nil when the file ends first.
    func bytes(at offset: UInt64, count: Int) throws(ZipError) -> [UInt8]? {
        var failure: ZipError?
        var complete = false
        let bytes = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            do throws(ZipError) {
                initialized = try read(at: offset, into: UnsafeMutableRawBufferPointer(buffer))
                complete = initialized == count
            } catch {
                failure = error
                initialized = 0
            }
        }
        if let failure { throw failure }
        return complete ? bytes : nil
    }
}

/// Little-endian integers at offsets in a record's bytes; callers have
/// checked that the record is long enough.
extension Collection<UInt8> where Index == Int {
    func littleEndian16(_ at: Int) -> UInt16 {
        UInt16(self[startIndex + at]) | UInt16(self[startIndex + at + 1]) << 8
    }

    func littleEndian32(_ at: Int) -> UInt32 {
        UInt32(littleEndian16(at)) | UInt32(littleEndian16(at + 2)) << 16
    }

    func littleEndian64(_ at: Int) -> UInt64 {
        UInt64(littleEndian32(at)) | UInt64(littleEndian32(at + 4)) << 32
    }
}
