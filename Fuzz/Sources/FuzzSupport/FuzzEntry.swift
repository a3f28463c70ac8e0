@_spi(CtxdebugTools) import ConcurrencyDebug
import CoreData
import Foundation
@_spi(Runtime) import ManagedContext
import Replay
import SurfJournal

/// The fuzz entry points (Scripts/fuzz, docs/reliability.md). Each takes one input and
/// returns normally or stops the process: a `precondition` here states an invariant
/// that must hold for every input, so libFuzzer reports a broken one as a crash. The
/// same functions run in ordinary builds over the regression inputs
/// (Tests/Fixtures/fuzz-regressions/<target>/) and random inputs (Scripts/fuzz-smoke).
public enum FuzzEntry {
    // MARK: journal reader

    /// `AccessJournalReader(bytes:)` on any bytes: it refuses or reads; what it reads is
    /// consistent, and events come only from blocks whose checksum held.
    public static func journalReader(_ data: [UInt8]) {
        // An input with an odd first byte (but not the 'C' of a real journal) gets a
        // valid session header in place of that byte, to get past the magic.
        var bytes = data
        if let first = data.first, first != 0x43, first & 1 == 1 { bytes = sessionHeader + data.dropFirst() }
        guard let reader = try? AccessJournalReader(bytes: bytes) else { return }
        var count = 0
        var violations = 0
        reader.forEachEvent { event in
            count += 1
            if !event.allowed { violations += 1 }
            precondition(event.operation.rawValue >= 1, "an event with operation 0")
        }
        let stats = reader.stats
        precondition(stats.events == count, "stats.events \(stats.events) != \(count) events")
        precondition(stats.violations == violations, "stats.violations \(stats.violations) != \(violations)")
        precondition(reader.blocks.reduce(0) { $0 + $1.eventCount } == count, "block event counts do not add up")
        precondition(reader.violations().count == violations, "violations() disagrees")
        var end = 0
        for block in reader.blocks {
            precondition(block.offset >= end && block.offset + block.size <= bytes.count, "blocks overlap or run past the end")
            end = block.offset + block.size
        }
        for problem in reader.problems {
            precondition(problem.offset >= 0 && problem.length >= 0 && problem.offset + problem.length <= bytes.count, "a problem outside the file: \(problem)")
        }
        _ = reader.isIntact
    }

    /// A valid session header (pid 1, start time 0), for inputs that lack one.
    static let sessionHeader: [UInt8] = {
        var h: [UInt8] = Array("CTXDJRNL".utf8) + [1, 0, 32, 0, 1, 0, 0, 0] + [UInt8](repeating: 0, count: 8)
        let crc = h.withUnsafeBytes { AccessJournalFormat.crc32c($0) }
        h += withUnsafeBytes(of: crc.littleEndian, Array.init)
        h += [0, 0, 0, 0]
        return h
    }()

    // MARK: workload parser

    /// `Workload.parse` on any bytes: a workload or an error naming a line and column
    /// inside the input.
    public static func workload(_ data: [UInt8]) {
        do {
            let w = try Workload.parse(data, fileName: "fuzz")
            for step in w.steps { precondition(step.line >= 1 && step.column >= 1, "a step without a position") }
            precondition(w.timelineSeconds >= 0 && w.timelineSeconds.isFinite, "timeline of \(w.timelineSeconds) s")
        } catch let e as ReplayError {
            precondition(e.code == .badInput, "code \(e.code)")
            let parts = e.message.split(separator: ":", maxSplits: 3)
            precondition(parts.count >= 3 && parts[0] == "fuzz", "no position: \(e.message)")
            let lines = data.reduce(1) { $0 + ($1 == 0x0A ? 1 : 0) }
            if let line = Int(parts[1]), let column = Int(parts[2]) {
                precondition(line >= 1 && line <= lines && column >= 1 && column <= data.count + 1, "position \(line):\(column) outside the input: \(e.message)")
            } else {
                preconditionFailure("no line and column: \(e.message)")
            }
        } catch {
            preconditionFailure("unexpected error type: \(error)")
        }
    }

    // MARK: objectID URIs

    /// One store for the URI and predicate targets, made once per process.
    final class Fixture: Sendable {
        let container: NSPersistentContainer
        /// A context on the store with `rows` saved.
        let saved: ManagedObjectContext
        /// A context on an empty store with the same rows inserted, unsaved.
        let pending: ManagedObjectContext
        let pendingContainer: NSPersistentContainer
        let storeUUID: String
        let temporaryPrefix: String
        let savedURIs: [String]

        init() {
            // libFuzzer ends with _Exit, so atexit never runs there: remove what
            // earlier processes that are gone left behind.
            let tmp = NSTemporaryDirectory()
            for name in (try? FileManager.default.contentsOfDirectory(atPath: tmp)) ?? [] where name.hasPrefix("ctxdebug-fuzz-") {
                if let pid = Int32(name.dropFirst("ctxdebug-fuzz-".count)), kill(pid, 0) != 0, errno == ESRCH {
                    try? FileManager.default.removeItem(atPath: tmp + "/" + name)
                }
            }
            let dir = URL(fileURLWithPath: FuzzEntry.fixtureDirectory)
            try? FileManager.default.removeItem(at: dir)
            try! FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            container = try! SurfJournal.openContainer(at: dir.appendingPathComponent("Saved.sqlite"))
            pendingContainer = try! SurfJournal.openContainer(at: dir.appendingPathComponent("Pending.sqlite"))
            saved = container.newBackgroundContext()
            pending = pendingContainer.newBackgroundContext()
            for context in [saved, pending] {
                context.performAndWait {
                    for (i, row) in FuzzEntry.rows.enumerated() {
                        let e = JournalEntry(context: context)
                        e.location = row.location
                        e.height = row.height
                        e.rating = row.rating.map { NSNumber(value: $0) }
                        e.date = row.date
                        e.wind = i % 4 == 0 ? nil : "w\(i)"
                    }
                }
            }
            let (saved, pending) = (saved, pending)
            savedURIs = saved.performAndWait {
                try! saved.save()
                return try! saved.fetch(FetchRequest<JournalEntry>()).map { $0.objectID.uriRepresentation().absoluteString }
            }
            storeUUID = container.persistentStoreCoordinator.storeUUID ?? ""
            temporaryPrefix = pending.performAndWait {
                let uri = pending.insertedObjects.first!.objectID.uriRepresentation().absoluteString
                return String(uri[..<(uri.lastIndex(of: "-")!)]) + "-"
            }
            atexit { try? FileManager.default.removeItem(atPath: FuzzEntry.fixtureDirectory) }
        }
    }

    static let fixture = Fixture()
    static let fixtureDirectory = NSTemporaryDirectory() + "/ctxdebug-fuzz-\(getpid())"

    struct Row {
        var location: String?
        var height: String?
        var rating: Int16?
        var date: Date?
    }

    static let rows: [Row] = [
        Row(location: "Rincon", height: "3-4", rating: 5, date: Date(timeIntervalSinceReferenceDate: 0)),
        Row(location: "Rincon Point", height: "2", rating: 4, date: Date(timeIntervalSinceReferenceDate: 86400)),
        Row(location: "Malibu", height: "1", rating: 3, date: Date(timeIntervalSinceReferenceDate: -86400)),
        Row(location: "", height: "", rating: 0, date: nil),
        Row(location: nil, height: nil, rating: nil, date: nil),
        Row(location: "Ocean Beach", height: "6-8", rating: -1, date: Date(timeIntervalSinceReferenceDate: 1e9)),
        Row(location: "ocean beach", height: "10", rating: 32767, date: Date(timeIntervalSinceReferenceDate: 1.5)),
        Row(location: "Mavericks 🌊", height: "25", rating: -32768, date: Date(timeIntervalSinceReferenceDate: 1e9)),
        Row(location: "Steamer Lane", height: "4", rating: 2, date: Date(timeIntervalSinceReferenceDate: 3600)),
        Row(location: "Pleasure Point", height: "3", rating: 3, date: Date(timeIntervalSinceReferenceDate: 7200)),
        Row(location: "%_", height: "x'y", rating: 1, date: Date(timeIntervalSinceReferenceDate: 1)),
        Row(location: "Rincon", height: "3.5", rating: 5, date: Date(timeIntervalSinceReferenceDate: 2)),
    ]

    /// `managedObjectID(forURIRepresentation:)` on any text: nil, or an ID whose URI
    /// parses back to the same ID.
    public static func objectIDURI(_ data: [UInt8]) {
        let f = fixture
        let coordinator = f.container.persistentStoreCoordinator
        guard let mode = data.first else { return }
        let rest = String(decoding: data.dropFirst(), as: UTF8.self)
        let text: String
        switch mode % 6 {
        case 0: text = rest
        case 1: text = "x-coredata://\(f.storeUUID)/" + rest
        case 2: text = "x-coredata://\(f.storeUUID)/JournalEntry/" + rest
        case 3: text = "x-coredata:///JournalEntry/" + rest
        case 4: text = f.temporaryPrefix + rest
        default: text = f.savedURIs[Int(mode) % f.savedURIs.count] + rest
        }
        guard let url = URL(string: text) else { return }
        guard let id = coordinator.managedObjectID(forURIRepresentation: url) else { return }
        let again = coordinator.managedObjectID(forURIRepresentation: id.uriRepresentation())
        precondition(again == id, "\(text) -> \(id) -> \(String(describing: again))")
        precondition(id.isTemporaryID == (id.primaryKey == nil), "temporary and permanent at once: \(id)")
        if let pk = id.primaryKey { precondition(pk > 0, "a non-positive key: \(id)") }
        // Looking it up in a context must not crash, whatever the key.
        f.saved.performAndWait {
            _ = try? f.saved.existingObject(with: id)
        }
    }

    // MARK: predicates

    /// Reads bytes as a little program that builds a predicate.
    struct ByteStream {
        var bytes: ArraySlice<UInt8>
        mutating func byte() -> UInt8 { bytes.popFirst() ?? 0 }
        var isEmpty: Bool { bytes.isEmpty }
        mutating func string() -> String {
            let n = Int(byte() % 8)
            let picks = ["Rincon", "R", "", "ocean", "Ocean Beach", "%", "_", "🌊", "3", "x'y", "Mavericks 🌊", "Rincon Point"]
            if n < 6 { return picks[Int(byte()) % picks.count] }
            var s: [UInt8] = []
            for _ in 0..<Int(byte() % 6) { s.append(byte()) }
            // Strings with a NUL stay out unless FUZZ_PREDICATE_NUL=1: GRDB binds text
            // NUL-terminated, so SQL sees such a value cut at the NUL (docs/reliability.md,
            // known limits). BEGINSWITH/CONTAINS with a NUL are fixed (predicate/fixed).
            if !FuzzEntry.keepNUL { s = s.map { $0 == 0 ? 1 : $0 } }
            return String(decoding: s, as: UTF8.self)
        }
        mutating func int() -> Int64 {
            switch byte() % 6 {
            case 0: return Int64(Int8(bitPattern: byte()))
            case 1: return Int64.max
            case 2: return Int64.min
            case 3: return 32767
            case 4: return -32768
            default: return Int64(Int16(truncatingIfNeeded: UInt16(byte()) << 8 | UInt16(byte())))
            }
        }
        mutating func double() -> Double {
            switch byte() % 6 {
            case 0: return .nan
            case 1: return .infinity
            case 2: return -.infinity
            case 3: return Double(Int8(bitPattern: byte())) / 4
            case 4: return 1e9
            default: return -0.0
            }
        }
    }

    static let mismatchedTypes = ProcessInfo.processInfo.environment["FUZZ_PREDICATE_MISMATCH"] != "0"
    static let keepNUL = ProcessInfo.processInfo.environment["FUZZ_PREDICATE_NUL"] == "1"

    static let attributes = ["location", "height", "rating", "date", "wind", "period"]

    /// A value of a type that suits the attribute (mostly) or not.
    static func value(for attribute: String, _ s: inout ByteStream) -> any AttributeValue {
        let sel = s.byte()
        // A value of another type than the attribute once made SQL and memory disagree;
        // such predicates are now refused (fixed; predicate/fixed). FUZZ_PREDICATE_MISMATCH=0
        // stops generating them.
        if sel % 8 != 7 || !FuzzEntry.mismatchedTypes {
            switch attribute {
            case "rating": return sel & 0x10 == 0 ? Int16(truncatingIfNeeded: s.int()) : Int16?.none as any AttributeValue
            case "date":
                let d = s.double()
                return sel & 0x10 == 0 ? Date(timeIntervalSinceReferenceDate: d.isFinite ? d : 0) : Date?.none as any AttributeValue
            default: return sel & 0x30 == 0x30 ? String?.none as any AttributeValue : s.string()
            }
        }
        switch s.byte() % 6 {
        case 0: return s.int()
        case 1: return s.double()
        case 2: return s.byte() & 1 == 0
        case 3: return Data([s.byte(), s.byte()])
        case 4: return Int32(truncatingIfNeeded: s.int())
        default: return s.string()
        }
    }

    static func attributePredicate<V: AttributeValue>(_ name: String, _ op: ComparisonOperator, _ v: V) -> FetchPredicate<JournalEntry> {
        .attribute(name, op, v)
    }

    static func inList<V: AttributeValue>(_ name: String, _ v: V, _ w: V) -> FetchPredicate<JournalEntry> {
        .attribute(name, in: [v, w])
    }

    static func predicate(_ s: inout ByteStream, depth: Int) -> FetchPredicate<JournalEntry> {
        let kind = s.byte() % (depth > 4 ? 5 : 9)
        let name = s.byte() % 16 == 15 ? "noSuchAttribute" : attributes[Int(s.byte()) % attributes.count]
        switch kind {
        case 0, 1:
            let ops: [ComparisonOperator] = [.equal, .notEqual, .less, .lessOrEqual, .greater, .greaterOrEqual]
            let op = ops[Int(s.byte()) % ops.count]
            let v = value(for: name, &s)
            return attributePredicate(name, op, v)
        case 2:
            let v = value(for: name, &s)
            let w = value(for: name, &s)
            if type(of: v) == type(of: w) { return inListOpened(name, v, w) }
            return inListOpened(name, v, v)
        case 3: return .attribute(name, beginsWith: s.string())
        case 4: return .attribute(name, contains: s.string())
        case 5: return predicate(&s, depth: depth + 1) && predicate(&s, depth: depth + 1)
        case 6: return predicate(&s, depth: depth + 1) || predicate(&s, depth: depth + 1)
        case 7: return !predicate(&s, depth: depth + 1)
        default: return s.byte() & 1 == 0 ? .all : FetchPredicate.none
        }
    }

    static func inListOpened(_ name: String, _ v: any AttributeValue, _ w: any AttributeValue) -> FetchPredicate<JournalEntry> {
        func open<V: AttributeValue>(_ v: V) -> FetchPredicate<JournalEntry> {
            inList(name, v, (w as? V) ?? v)
        }
        return open(v)
    }

    /// Builds a predicate from bytes and fetches with it twice: compiled to SQL over
    /// saved rows, and evaluated in memory over the same rows unsaved. Both must agree
    /// (or both refuse the predicate).
    public static func predicate(_ data: [UInt8]) {
        var s = ByteStream(bytes: data[...])
        let p = predicate(&s, depth: 0)
        let sortByLocation = s.byte() & 1 == 1
        var request = FetchRequest<JournalEntry>(predicate: p)
        if sortByLocation { request.sortDescriptors = [FetchSortDescriptor(key: "location", ascending: s.byte() & 1 == 0)] }
        let f = fixture
        func run(_ context: ManagedObjectContext) -> Result<[String], ManagedContextError> {
            context.performAndWait {
                do {
                    let rows = try context.fetch(request).map { "\($0.location ?? "nil")|\($0.height ?? "nil")|\($0.wind ?? "nil")" }
                    return .success(rows)
                } catch let e as ManagedContextError {
                    return .failure(e)
                } catch {
                    preconditionFailure("fetch threw \(error)")
                }
            }
        }
        let inSQL = run(f.saved)
        let inMemory = run(f.pending)
        switch (inSQL, inMemory) {
        case (.success(let a), .success(let b)):
            precondition(a.sorted() == b.sorted(), "SQL and in-memory evaluation disagree for \(p):\n  SQL:       \(a.sorted())\n  in memory: \(b.sorted())")
        case (.failure(let a), .failure(let b)):
            precondition(a.code == b.code && a.code == .invalidFetchRequest, "both refused, differently: \(a) / \(b)")
        default:
            preconditionFailure("one path refused the predicate, the other did not: \(inSQL) / \(inMemory)")
        }
    }
}
