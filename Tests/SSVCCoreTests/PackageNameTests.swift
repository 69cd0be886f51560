import SSVCCore
import Testing

/// Package names in OSV records: PyPI's compared as PEP 503 normalises
/// them, in one pass, and none longer than 1 KiB (issue 51: a 1 MiB name
/// held the daemon 14 s, the normalisation being quadratic).
@Suite("package names in advisories")
struct PackageNameTests {
    @Test("PyPI names compare as PEP 503 normalises them; other ecosystems exactly", arguments: [
        ("Foo__Bar.baz-Qux", "foo-bar-baz-qux", "PyPI", true),
        ("zope.interface", "Zope_Interface", "PyPI", true),
        ("a-_.b", "A.B", "PyPI", true),
        ("Ünïcode_X", "ünïcode-x", "PyPI", true),
        ("foo-bar", "foobar", "PyPI", false),
        ("Foo", "foo", "npm", false),
        ("foo_bar", "foo-bar", "crates.io", false),
    ])
    func normalised(recordName: String, name: String, ecosystem: String, same: Bool) {
        #expect(EcosystemOrder.samePackage(recordName, name, ecosystem: ecosystem) == same)
    }

    // The limit guards against a hang, and is no speed bound: the quadratic
    // normalisation took minutes for 4 MiB, this takes milliseconds.
    @Test("a 4 MiB PyPI name is normalised in one pass", .timeLimit(.minutes(1)))
    func longNameLinear() {
        let unit = "Ab_-.c"
        let long = String(repeating: unit, count: (4 << 20) / unit.utf8.count)
        let normal = String(repeating: "ab-c", count: (4 << 20) / unit.utf8.count)
        #expect(EcosystemOrder.samePackage(long, normal, ecosystem: "PyPI"))
        #expect(!EcosystemOrder.samePackage(long, normal + "x", ecosystem: "PyPI"))
    }

    @Test("a record naming a package of more than 1 KiB is refused, naming the record and the length")
    func boundedName() throws {
        func record(_ name: String) throws(DocumentError) -> OSVRecord {
            try OSVRecord(parsing: Array("""
                {"id": "PYSEC-LONG", "modified": "2026-01-01T00:00:00Z", "affected": [{"package": {"ecosystem": "PyPI", "name": "\(name)"}}]}
                """.utf8))
        }
        let most = String(repeating: "v", count: OSVRecord.maximumPackageNameBytes)
        #expect(try record(most).affected.first?.name == most)
        do {
            _ = try record(most + "v")
            Issue.record("a package name of 1025 bytes was accepted")
        } catch {
            #expect(error.description.contains("PYSEC-LONG names a package of 1025 bytes, more than 1024"), "\(error.description)")
        }
    }
}
