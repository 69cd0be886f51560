#if FUZZING
import Foundation
#endif
import SSVCCore
import SSVCPosix

/// dpkg itself: `dpkg --compare-versions` on every pair ssvc's `debian`
/// scheme reads, which must order them as dpkg does.
enum DebianOracle {
    static func compare(_ left: String, _ right: String) {
        guard let ours = try? VersionScheme.debian.compare(left, right) else { return }
        // Arguments with NUL cannot be passed; the scheme refuses them anyway.
        guard !left.utf8.contains(0), !right.utf8.contains(0) else { return }
        let lower = dpkg(left, "lt", right)
        let equal = dpkg(left, "eq", right)
        guard let lower, let equal else {
            preconditionFailure("the debian scheme reads '\(left)' and '\(right)', which dpkg refuses")
        }
        let theirs: VersionComparison = lower ? .older : (equal ? .same : .newer)
        precondition(ours == theirs, "debian: '\(left)' vs '\(right)': ssvc says \(ours), dpkg says \(theirs)")
    }

    /// true or false as dpkg answers; nil when it refuses a version.
    private static func dpkg(_ left: String, _ relation: String, _ right: String) -> Bool? {
        guard let run = try? ChildProcess.run(
            ["/usr/bin/dpkg", "--compare-versions", "--", left, relation, right], timeout: 10, outputLimit: 4096
        ) else { return nil }
        switch run.termination.code {
        case 0: return true
        case 1: return false
        default: return nil
        }
    }
}

/// A second JSON parser on the same bytes: Foundation's `JSONSerialization`
/// (in fuzzing builds, which link Foundation). What ssvc accepts, it must
/// accept with the same value; what ssvc refuses, it may accept only for
/// the reasons listed in `allowedRefusal`.
enum JSONOracle {
    /// ssvc's refusals that are stricter than Foundation on purpose.
    static func allowedRefusal(_ error: String, _ bytes: [UInt8]) -> Bool {
        // Duplicate keys: RFC 8259 leaves them undefined; a document that
        // says two things is refused. Depth: bounded so that no document
        // can exhaust the stack.
        if error.contains("duplicate key") || error.contains("nesting deeper than") { return true }
        // A comma before a closing bracket: Foundation reads it, RFC 8259
        // does not allow it.
        if error.contains("unexpected '}', expected a string key") || error.contains("unexpected ']', expected a value") { return true }
        // NUL bytes: Foundation takes them as UTF-16 or UTF-32 (RFC 4627's
        // detection) or stops reading at one; RFC 8259 wants UTF-8, and
        // nothing but white space after the value.
        return bytes.contains(0)
    }

    static func compare(_ bytes: [UInt8], ours: JSONValue?) {
        #if FUZZING
        let theirs = try? JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed])
        guard let ours else {
            guard let theirs else { return }
            var reason = ""
            do { _ = try JSONParser.parse(bytes) } catch { reason = "\(error)" }
            precondition(allowedRefusal(reason, bytes), "JSON refused by ssvc (\(reason)) but read by Foundation as \(theirs)")
            return
        }
        guard let theirs else {
            // ssvc keeps numbers as their text, so it reads numbers past a
            // Double's range, which RFC 8259 lets a parser refuse.
            precondition(hasHugeNumber(ours), "JSON read by ssvc (\(ours.canonicalText.prefix(200))) but refused by Foundation")
            return
        }
        precondition(same(ours, theirs), "JSON read differently: ssvc \(ours.canonicalText), Foundation \(theirs)")
        #endif
    }

    static func hasHugeNumber(_ value: JSONValue) -> Bool {
        switch value {
        case let .number(text): return !(Double(text)?.isFinite ?? false)
        case let .array(elements): return elements.contains(where: hasHugeNumber)
        case let .object(members): return members.contains { hasHugeNumber($0.value) }
        default: return false
        }
    }

    #if FUZZING
    static func same(_ ours: JSONValue, _ theirs: Any) -> Bool {
        switch ours {
        case .null: return theirs is NSNull
        case let .bool(flag): return (theirs as? NSNumber).map { String(cString: $0.objCType) == "c" && $0.boolValue == flag } ?? false
        case let .number(text):
            guard let number = theirs as? NSNumber, let value = Double(text) else { return false }
            let other = number.doubleValue
            // Foundation holds long numbers as Decimal, whose Double is
            // not always the nearest one: the same number within 1e-9.
            return value == other || (value.isFinite && abs(value - other) <= abs(value) * 1e-9)
        case let .string(text): return (theirs as? String) == text
        case let .array(elements):
            guard let list = theirs as? [Any], list.count == elements.count else { return false }
            return zip(elements, list).allSatisfy { same($0, $1) }
        case let .object(members):
            guard let dictionary = theirs as? [String: Any], dictionary.count == members.count else { return false }
            return members.allSatisfy { member in dictionary[member.key].map { same(member.value, $0) } ?? false }
        }
    }
    #endif
}
