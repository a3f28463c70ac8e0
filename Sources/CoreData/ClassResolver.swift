import CtxdebugHelpers
import Foundation
import Synchronization

/// Finds the Swift class an entity names (`representedClassName`), as Core Data
/// finds it through the Objective-C runtime: `Module.Class` directly; a bare
/// `Class` (Xcode's `@objc(Class)` style, or `$(PRODUCT_MODULE_NAME).Class`) in
/// whichever module of the running program declares a class of that name. A class
/// that cannot be found gives plain `NSManagedObject`, with Core Data's warning.
enum ClassResolver {
    static func managedObjectClass(named rawName: String?, entity: String) -> NSManagedObject.Type {
        guard let rawName, !rawName.isEmpty, rawName != "NSManagedObject" else { return NSManagedObject.self }
        if let found = existingManagedObjectClass(named: rawName) { return found }
        warnOnce(
            "CoreData: warning: Unable to load class named '\(rawName)' for entity '\(entity)'.  Class not found, using default NSManagedObject instead.")
        return NSManagedObject.self
    }

    /// Classes the program named itself (`NSManagedObjectModel.registerClass(_:)`),
    /// by bare and qualified name.
    static let registered = LockedValue<[String: NSManagedObject.Type]>([:])

    static func register(_ cls: NSManagedObject.Type) {
        let qualified = String(reflecting: cls)
        registered.withLock {
            $0[qualified] = cls
            $0[String(describing: cls)] = cls
        }
    }

    /// The mangled name `_typeByName` takes for a class `Module.Class`: `6Module5ClassC`.
    static func mangledClassName(_ parts: [String]) -> String {
        parts.map { "\($0.utf8.count)\($0)" }.joined() + "C"
    }

    private static let warned = LockedValue<Set<String>>([])
    private static func warnOnce(_ message: String) {
        guard warned.withLock({ $0.insert(message).inserted }) else { return }
        FileHandle.standardError.write(Data((message + "\n").utf8))
    }
}

/// The Swift modules of the running program, read from the symbol tables of the
/// executable and its loaded libraries: the module of every nominal type descriptor
/// (`$s<len><Module>…Mn`). The type's own name is not matched there: the mangler
/// shortens words a class shares with its module (`JournalEntry` in `SurfJournalApp` is
/// `$s14SurfJournalApp0B5EntryCMn`), so the runtime is asked for the class in each module.
enum ProgramSymbols {
    static var moduleNames: [String] { scanned.modules }

    /// The modules whose SwiftPM resource bundle the program can reach: those that
    /// declare `Bundle.module` (SwiftPM's accessor, `$s10Foundation6BundleC<len><Module>E6moduleACvgZ`).
    /// Nil when that cannot be told: no accessor found (a stripped program, not built by
    /// SwiftPM), or a module name the mangler shortened.
    static var resourceBundleModules: Set<String>? { scanned.resourceModules }

    private static let scanned: (modules: [String], resourceModules: Set<String>?) = {
        var paths = ["/proc/self/exe"]
        if let maps = try? String(contentsOfFile: "/proc/self/maps", encoding: .utf8) {
            for line in maps.split(separator: "\n") {
                guard let slash = line.firstIndex(of: "/") else { continue }
                let path = String(line[slash...])
                if path.hasSuffix(".so") && !path.hasPrefix("/usr/lib") && !path.hasPrefix("/lib") && !path.hasPrefix("/opt/swift") && !paths.contains(path) {
                    paths.append(path)
                }
            }
        }
        var modules: [String] = []
        var seen = Set<String>()
        var resourceModules: Set<String>? = []
        for path in paths {
            for symbol in ELFSymbols.names(inFileAt: path, keep: { $0.hasSuffix("Mn") || $0.hasSuffix(bundleAccessorSuffix) }) {
                if symbol.hasSuffix(bundleAccessorSuffix) {
                    guard symbol.hasPrefix(bundleAccessorPrefix), let module = moduleName(of: "$s" + symbol.dropFirst(bundleAccessorPrefix.count)) else {
                        resourceModules = nil
                        continue
                    }
                    resourceModules?.insert(module)
                    continue
                }
                guard let module = moduleName(of: symbol), seen.insert(module).inserted else { continue }
                modules.append(module)
            }
        }
        return (modules, resourceModules?.isEmpty == false ? resourceModules : nil)
    }()

    private static let bundleAccessorPrefix = "$s10Foundation6BundleC"
    private static let bundleAccessorSuffix = "E6moduleACvgZ"

    /// `$s<len><Module>…` → Module.
    static func moduleName(of symbol: String) -> String? {
        let rest = symbol.utf8.dropFirst(2)
        let digits = rest.prefix { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
        guard let length = Int(String(decoding: digits, as: UTF8.self)), length > 0 else { return nil }
        let name = rest.dropFirst(digits.count).prefix(length)
        guard name.count == length else { return nil }
        return String(decoding: name, as: UTF8.self)
    }
}

/// `NSClassFromString(_:)` as `ctxdebug port` writes it for Core Data code
/// (`NSClassFromString(entity.managedObjectClassName)`): a model's class name finds its
/// `NSManagedObject` subclass as the model's own lookup does (a bare `Note` in whichever
/// module of the program declares it, or `Module.Note`); any other name goes to
/// Foundation's `NSClassFromString`.
public func NSClassFromString(ported name: String) -> AnyClass? {
    if let found = ClassResolver.existingManagedObjectClass(named: name) { return found }
    return Foundation.NSClassFromString(name)
}

extension ClassResolver {
    /// The `NSManagedObject` subclass `name` names, or nil (no warning: the caller asks).
    static func existingManagedObjectClass(named rawName: String) -> NSManagedObject.Type? {
        var name = rawName
        for prefix in ["$(PRODUCT_MODULE_NAME).", "."] where name.hasPrefix(prefix) { name.removeFirst(prefix.count) }
        guard !name.isEmpty else { return nil }
        if name == "NSManagedObject" { return NSManagedObject.self }
        if let found = registered.withLock({ $0[name] }) { return found }
        let parts = name.split(separator: ".").map(String.init)
        var candidates = parts.count >= 2 ? [mangledClassName(parts)] : []
        let bare = parts.last ?? name
        candidates += ProgramSymbols.moduleNames.map { mangledClassName([$0, bare]) }
        return candidates.lazy.compactMap { _typeByName($0) as? NSManagedObject.Type }.first
    }
}
