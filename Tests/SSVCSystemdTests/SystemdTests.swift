import Logging
import SSVCSystemd
import Testing

@Suite("journal field names and priorities")
struct JournalFieldTests {
    @Test("metadata keys become valid journal field names", arguments: [
        ("SSVC_APP", "SSVC_APP"),
        ("ssvc.app", "SSVC_APP"),
        ("_SYSTEMD_UNIT", "SYSTEMD_UNIT"),
        ("1st", "F1ST"),
        ("ü-key", "KEY"),  // "__KEY", and a leading "_" is journald's own
        ("", "FIELD"),
        ("___", "FIELD"),
        (String(repeating: "A", count: 80), String(repeating: "A", count: 64)),
    ])
    func fieldName(key: String, name: String) {
        #expect(Journal.fieldName(key) == name)
    }

    @Test("levels map to syslog priorities: notice 5, warning 4")
    func priorities() {
        #expect(JournalLogHandler.priority(.info) == 6)
        #expect(JournalLogHandler.priority(.notice) == 5)
        #expect(JournalLogHandler.priority(.warning) == 4)
        #expect(JournalLogHandler.priority(.error) == 3)
        #expect(JournalLogHandler.priority(.critical) == 2)
        #expect(JournalLogHandler.priority(.debug) == 7)
    }
}
