import CtxdebugHelpers
import Foundation
@_spi(CoreData) import ManagedContext

/// Core Data's `NSSQLitePragmasOption` (and `NSPersistentStoreDescription.setValue(_:forPragmaNamed:)`):
/// a dictionary of pragma names to values, run on each connection of the store. The one
/// pragma not run is a `journal_mode` other than WAL: these stores are always in WAL mode
/// (readers beside a writer), so it is skipped with a warning.
enum SQLitePragmas {
    static func parse(_ option: Any?) throws -> [SQLitePragma] {
        guard let option else { return [] }
        guard let dictionary = option as? [String: Any] ?? (option as? [AnyHashable: Any]).flatMap(stringKeyed) else {
            throw ManagedContextError(.storeOpenFailed, "NSSQLitePragmasOption must be a dictionary of pragma names to values (got \(type(of: option))). Pass [\"synchronous\": \"NORMAL\"], for instance.")
        }
        var pragmas: [SQLitePragma] = []
        for (name, value) in dictionary.sorted(by: { $0.key < $1.key }) {
            if value is NSNull { continue }
            if name.lowercased() == "journal_mode" {
                if "\(value)".uppercased() != "WAL" { warnJournalMode("\(value)") }
                continue
            }
            let pragma: SQLitePragma?
            switch value {
            case let text as String: pragma = SQLitePragma(name: name, text: text)
            case let bool as Bool: pragma = SQLitePragma(name: name, number: bool ? 1 : 0)
            case let number as NSNumber: pragma = SQLitePragma(name: name, number: number.doubleValue)
            case let number as Int: pragma = SQLitePragma(name: name, number: Double(number))
            case let number as Double: pragma = SQLitePragma(name: name, number: number)
            default:
                throw ManagedContextError(.storeOpenFailed, "The SQLite pragma \(name) has a value of type \(type(of: value)); give it a string or a number.")
            }
            guard let pragma else {
                throw ManagedContextError(.storeOpenFailed, "'\(name)' is not an SQLite pragma name (letters, digits and underscores). Check NSSQLitePragmasOption.")
            }
            pragmas.append(pragma)
        }
        return pragmas
    }

    private static func stringKeyed(_ d: [AnyHashable: Any]) -> [String: Any]? {
        var result: [String: Any] = [:]
        for (k, v) in d {
            guard let key = k.base as? String else { return nil }
            result[key] = v
        }
        return result
    }

    private static let warned = LockedValue(false)

    private static func warnJournalMode(_ mode: String) {
        let first = warned.withLock { w in defer { w = true }; return !w }
        guard first else { return }
        FileHandle.standardError.write(Data("CoreData: warning: the SQLite pragma journal_mode = \(mode) is not applied: stores on Linux are always in WAL mode. The other pragmas are.\n".utf8))
    }
}
