extension String {
    /// One decimal place.
    init(format1 value: Double) {
        let tenths = Int((value * 10).rounded())
        self = "\(tenths / 10).\(abs(tenths % 10))"
    }

    /// KiB as MiB, one decimal place.
    init(mebibytes kibibytes: Int) {
        self.init(format1: Double(kibibytes) / 1024)
    }

    /// Two decimals.
    init(format2 value: Double) {
        let hundredths = Int((value * 100).rounded())
        let fraction = abs(hundredths) % 100
        self = "\(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction)"
    }
}
