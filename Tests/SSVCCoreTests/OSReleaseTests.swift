import Foundation
import Testing
@testable import SSVCCore

@Suite("os-release")
struct OSReleaseTests {
    @Test("reads plain, quoted and escaped values, skipping comments")
    func parses() {
        let fields = OSRelease.parse("""
            # comment
            NAME="Debian GNU/Linux"
            VERSION_ID="12"
            ID=debian
            PRETTY='Single quoted'
            ESCAPED="a \\"b\\" \\$c \\\\ d"
            bad line
            =novalue
              SPACED=yes
            """)
        #expect(fields["NAME"] == "Debian GNU/Linux")
        #expect(fields["VERSION_ID"] == "12")
        #expect(fields["ID"] == "debian")
        #expect(fields["PRETTY"] == "Single quoted")
        #expect(fields["ESCAPED"] == #"a "b" $c \ d"#)
        #expect(fields["SPACED"] == "yes")
        #expect(fields.count == 6)
    }
}
