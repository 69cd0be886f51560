/// The bounds a reader holds an archive to, whoever made it.
///
/// Memory while reading is a few 64 KiB buffers plus the one entry being
/// read, which `maximumEntryBytes` bounds; nothing grows with the number
/// of entries or the size of the archive.
public struct ZipBounds: Sendable, Equatable {
    /// The most entries the central directory may list.
    public var maximumEntries: Int
    /// The most bytes of one entry's name.
    public var maximumNameBytes: Int
    /// The most bytes one entry may inflate to.
    public var maximumEntryBytes: Int
    /// The most bytes all entries read from one archive may inflate to.
    public var maximumTotalBytes: Int
    /// The most bytes an entry may inflate to per compressed byte, once
    /// it inflates to more than `ratioFreeBytes` (a zip bomb's are in the
    /// tens of thousands; deflate's best on real text is about 20 to 1).
    public var maximumRatio: Int
    /// Entries up to this size are not held to `maximumRatio`: a small
    /// file of one repeated byte compresses far better than 1000 to 1.
    public var ratioFreeBytes: Int

    public init(
        maximumEntries: Int = 2_000_000, maximumNameBytes: Int = 1024,
        maximumEntryBytes: Int = 16 << 20, maximumTotalBytes: Int = 4 << 30,
        maximumRatio: Int = 1000, ratioFreeBytes: Int = 1 << 20
    ) {
        self.maximumEntries = maximumEntries
        self.maximumNameBytes = maximumNameBytes
        self.maximumEntryBytes = maximumEntryBytes
        self.maximumTotalBytes = maximumTotalBytes
        self.maximumRatio = maximumRatio
        self.ratioFreeBytes = ratioFreeBytes
    }
}
