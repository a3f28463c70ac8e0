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
        guard var name = rawName, !name.isEmpty, name != "NSManagedObject" else { return NSManagedObject.self }
        for prefix in ["$(PRODUCT_MODULE_NAME).", "."] where name.hasPrefix(prefix) { name.removeFirst(prefix.count) }
        if let found = registered.withLock({ $0[name] }) { return found }
        var candidates: [String] = []
        let parts = name.split(separator: ".").map(String.init)
        if parts.count >= 2 {
            candidates.append(mangledClassName(parts))
        }
        let bare = parts.last ?? name
        candidates += ProgramSymbols.modules(declaringClass: bare).map { mangledClassName([$0, bare]) }
        for candidate in candidates {
            if let cls = _typeByName(candidate) as? NSManagedObject.Type { return cls }
        }
        warnOnce(
            "CoreData: warning: Unable to load class named '\(rawName!)' for entity '\(entity)'.  Class not found, using default NSManagedObject instead.")
        return NSManagedObject.self
    }

    /// Classes the program named itself (`NSManagedObjectModel.registerClass(_:)`),
    /// by bare and qualified name.
    static let registered = Mutex<[String: NSManagedObject.Type]>([:])

    static func register(_ cls: NSManagedObject.Type) {
        let qualified = String(reflecting: cls)
        registered.withLock {
            $0[qualified] = cls
            $0[String(describing: cls)] = cls
        }
    }

    /// The mangled name `_typeByName` takes for a class `Module.Class`: `6Module5ClassC`.
    private static func mangledClassName(_ parts: [String]) -> String {
        parts.map { "\($0.utf8.count)\($0)" }.joined() + "C"
    }

    private static let warned = Mutex<Set<String>>([])
    private static func warnOnce(_ message: String) {
        guard warned.withLock({ $0.insert(message).inserted }) else { return }
        FileHandle.standardError.write(Data((message + "\n").utf8))
    }
}

/// The modules of the running program that declare a class of a given name, read
/// from the symbol tables of the executable and its loaded libraries (a class's
/// nominal type descriptor symbol `$s<len><Module><len><Class>CMn`).
enum ProgramSymbols {
    static func modules(declaringClass name: String) -> [String] {
        let suffix = "\(name.utf8.count)\(name)CMn"
        return descriptorSymbols.compactMap { symbol -> String? in
            guard symbol.hasSuffix(suffix) else { return nil }
            // "$s" <len> <Module> <suffix>: the module is a single identifier.
            var rest = symbol.dropFirst(2).dropLast(suffix.count)
            let digits = rest.prefix { $0.isNumber }
            guard let length = Int(digits), length > 0 else { return nil }
            rest = rest.dropFirst(digits.count)
            guard rest.utf8.count == length else { return nil }
            return String(rest)
        }
    }

    /// Every `$s…CMn` symbol of the executable and the libraries loaded from it, read once.
    private static let descriptorSymbols: [String] = {
        var paths = ["/proc/self/exe"]
        if let maps = try? String(contentsOfFile: "/proc/self/maps", encoding: .utf8) {
            for line in maps.split(separator: "\n") {
                guard let slash = line.firstIndex(of: "/") else { continue }
                let path = String(line[slash...])
                if path.hasSuffix(".so") && !path.hasPrefix("/usr/lib") && !path.hasPrefix("/lib") && !paths.contains(path) {
                    paths.append(path)
                }
            }
        }
        return paths.flatMap { ELFSymbols.names(inFileAt: $0) { $0.hasPrefix("$s") && $0.hasSuffix("CMn") } }
    }()
}
