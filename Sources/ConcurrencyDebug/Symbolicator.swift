import CConcurrencyDebug
import CtxdebugHelpers
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Turns captured return addresses into function names and file:line.
///
/// It runs `llvm-symbolizer` (from the Swift toolchain when it can find one) as a
/// child process, once per binary or shared library, with addresses relative to where
/// that file is loaded (from the dynamic loader's records: executables are PIE), and
/// demangles Swift names with the runtime's own `swift_demangle`. Without a
/// symbolizer it falls back to `dladdr`: names and offsets, no file:line.
///
/// Slow (it starts processes): call it at report time, never at the violation.
final class Symbolicator: Sendable {
    static let shared = Symbolicator()

    /// Resolved frames per address, so a stack seen twice is symbolicated once.
    private let cache = LockedValue<[UInt: [StackFrame]]>([:])

    /// The symbolizer found on this machine, or nil.
    let symbolizerPath: String? = Symbolicator.findSymbolizer()

    /// The frames of one stack, with the checker's own frames dropped from the top
    /// and the runtime's frames above the user's code marked (`isRuntime`).
    func frames(for addresses: [UInt]) -> [StackFrame] {
        resolve(addresses)
        let resolved = cache.withLock { cache in addresses.flatMap { cache[$0] ?? [StackFrame(address: $0)] } }
        return RuntimeFrames.marking(Self.droppingCheckerFrames(resolved))
    }

    /// Symbolicates many stacks together (one symbolizer run per binary for all).
    func prepare(_ stacks: [[UInt]]) {
        resolve(stacks.flatMap { $0 })
    }

    private func resolve(_ addresses: [UInt]) {
        let missing = cache.withLock { cache in Set(addresses.filter { cache[$0] == nil }) }
        guard !missing.isEmpty else { return }
        var resolved: [UInt: [StackFrame]] = [:]
        let maps = ProcessMaps.read()
        var byModule: [String: [(address: UInt, relative: UInt)]] = [:]
        for address in missing {
            if let module = maps.module(containing: address), symbolizerPath != nil, !module.path.hasPrefix("[") {
                // A return address points after the call: look up the call itself.
                let relative = address &- module.bias &- 1
                byModule[module.path, default: []].append((address, relative))
            } else {
                resolved[address] = [Self.dladdrFrame(address)]
            }
        }
        if let symbolizerPath {
            for (path, entries) in byModule {
                let results = Self.runSymbolizer(symbolizerPath, object: path, addresses: entries.map(\.relative))
                for (index, entry) in entries.enumerated() {
                    var frames = index < results.count ? results[index] : []
                    for i in frames.indices {
                        frames[i].address = entry.address
                        frames[i].module = path
                    }
                    if frames.isEmpty || frames.allSatisfy({ $0.function == nil }) {
                        frames = [Self.dladdrFrame(entry.address)]
                    }
                    resolved[entry.address] = frames
                }
            }
        }
        cache.withLock { cache in cache.merge(resolved) { $1 } }
    }

    // MARK: Dropping the checker's frames

    /// Drops, from the top of the stack, the frames that belong to the checker (the
    /// capture, the slow path, the handlers, the inlined `check`), so the first frame
    /// is the offending access or its accessor (`QueueConfined.value`, an attribute).
    static func droppingCheckerFrames(_ frames: [StackFrame]) -> [StackFrame] {
        let index = frames.firstIndex { !isCheckerFrame($0) } ?? frames.endIndex
        return index == frames.endIndex ? frames : Array(frames[index...])
    }

    static func isCheckerFrame(_ frame: StackFrame) -> Bool {
        if let file = frame.file, let range = file.range(of: "/Sources/ConcurrencyDebug/", options: .backwards) {
            return file[range.upperBound...] != "QueueConfined.swift"
        }
        guard var name = frame.function else { return false }
        if name.hasPrefix("ctxdebug_") || name.hasPrefix("unw_") || name.hasPrefix("_ULx86_64")
            || name.hasPrefix("_Ux86_64") || name.hasPrefix("_ULaarch64") || name.hasPrefix("_Uaarch64")
        {
            return true
        }
        for prefix in ["merged ", "static ", "generic specialization ", "function signature specialization "] {
            if name.hasPrefix(prefix) {
                name.removeFirst(prefix.count)
                if let of = name.range(of: "> of ") { name = String(name[of.upperBound...]) }
            }
        }
        if name.hasPrefix("closure #") || name.hasPrefix("implicit closure #"),
            let inRange = name.range(of: " in ")
        {
            name = String(name[inRange.upperBound...])
            if name.hasPrefix("static ") { name.removeFirst("static ".count) }
        }
        return ["ConcurrencyDebug.Checker.", "ConcurrencyDebug.ConcurrencyDebug.", "ConcurrencyDebug.StackTrace.",
                "ConcurrencyDebug.ViolationRecorder.", "ConcurrencyDebug.Symbolicator."].contains { name.hasPrefix($0) }
    }

    // MARK: dladdr fallback

    static func dladdrFrame(_ address: UInt) -> StackFrame {
        var file: UnsafePointer<CChar>?
        var symbol: UnsafePointer<CChar>?
        var symbolAddress: UnsafeMutableRawPointer?
        guard let pointer = UnsafeRawPointer(bitPattern: address),
            ctxdebug_dladdr(pointer, &file, nil, &symbol, &symbolAddress) != 0
        else {
            return StackFrame(address: address)
        }
        let module = file.map { String(cString: $0) }
        guard let symbol else {
            return StackFrame(address: address, module: module)
        }
        let offset = address &- UInt(bitPattern: symbolAddress)
        let name = Demangler.demangle(String(cString: symbol))
        return StackFrame(address: address, function: "\(name) + \(offset)", module: module)
    }

    // MARK: llvm-symbolizer

    /// `CTXDEBUG_SYMBOLIZER` when set (a path, or `none` for names from `dladdr`
    /// only: fast, no file:line); else the toolchain's symbolizer (next to `swift`, or
    /// under /opt/swift), else the system's, else any on PATH.
    static func findSymbolizer() -> String? {
        if let chosen = ConcurrencyDebug.Variable.symbolizer.value(in: ConcurrencyDebug.Variable.current()),
            !EnvironmentValue.isBlank(chosen)
        {
            return EnvironmentValue.trimmed(chosen) == "none" || access(chosen, X_OK) != 0 ? nil : chosen
        }
        var candidates: [String] = []
        let path = getenv("PATH").map { String(cString: $0) } ?? "/usr/bin:/bin"
        let directories = path.split(separator: ":").map(String.init)
        for directory in directories {
            let swift = directory + "/swift"
            if access(swift, X_OK) == 0, let real = realpath(swift, nil) {
                let resolved = String(cString: real)
                free(real)
                let bin = resolved.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
                candidates.append(bin + "/llvm-symbolizer")
                break
            }
        }
        candidates.append("/opt/swift/usr/bin/llvm-symbolizer")
        candidates.append("/usr/bin/llvm-symbolizer")
        candidates += directories.map { $0 + "/llvm-symbolizer" }
        return candidates.first { access($0, X_OK) == 0 }
    }

    private struct SymbolizerResult: Decodable {
        struct Symbol: Decodable {
            var FunctionName: String?
            var FileName: String?
            var Line: Int?
            var Column: Int?
        }
        var Symbol: [Symbol]?
    }

    /// Runs the symbolizer once for `addresses` (relative to `object`); one frame list
    /// per address, innermost inlined frame first.
    static func runSymbolizer(_ tool: String, object: String, addresses: [UInt]) -> [[StackFrame]] {
        var arguments = [
            tool, "--obj=" + object, "--output-style=JSON", "--inlining", "--functions=linkage", "--demangle",
        ]
        arguments += addresses.map { "0x" + String($0, radix: 16) }
        guard let output = Subprocess.run(arguments), !output.isEmpty else { return [] }
        return frames(fromSymbolizerJSON: Data(output))
    }

    /// llvm-symbolizer's `--output-style=JSON` answer as frames, one list per address.
    static func frames(fromSymbolizerJSON output: Data) -> [[StackFrame]] {
        guard let results = try? JSONDecoder().decode([SymbolizerResult].self, from: output) else { return [] }
        return results.map { result in
            let symbols = result.Symbol ?? []
            return symbols.enumerated().map { index, symbol in
                let rawName = symbol.FunctionName.flatMap { $0.isEmpty || $0 == "??" ? nil : $0 }
                let line = symbol.Line.flatMap { $0 > 0 ? $0 : nil }
                // At line 0 the file is only the compile unit the address fell in (a
                // library's crtstuff.c), not where the function is, except a Swift
                // thunk's "<compiler-generated>", which says whose frame it is.
                let file = symbol.FileName.flatMap { name -> String? in
                    if name.isEmpty || name == "??" { return nil }
                    return line != nil || name.hasSuffix("<compiler-generated>") ? name : nil
                }
                return StackFrame(
                    address: 0, function: rawName.map(Demangler.demangle), file: file,
                    line: line, column: symbol.Column.flatMap { $0 > 0 ? $0 : nil },
                    isInlined: index < symbols.count - 1)
            }
        }
    }
}

/// Swift demangling through the runtime's `swift_demangle`, found with dlsym.
enum Demangler {
    private typealias DemangleFunction = @convention(c) (
        UnsafePointer<CChar>?, Int, UnsafeMutablePointer<CChar>?, UnsafeMutablePointer<Int>?, UInt32
    ) -> UnsafeMutablePointer<CChar>?

    private static let function: DemangleFunction? = {
        guard let handle = dlopen(nil, RTLD_NOW), let symbol = dlsym(handle, "swift_demangle") else { return nil }
        return unsafeBitCast(symbol, to: DemangleFunction.self)
    }()

    /// The demangled name, or `name` itself when it is not a Swift name.
    static func demangle(_ name: String) -> String {
        guard name.hasPrefix("$s") || name.hasPrefix("_$s") || name.hasPrefix("$e") || name.hasPrefix("_T0"),
            let function
        else { return name }
        return name.withCString { cName in
            guard let result = function(cName, strlen(cName), nil, nil, 0) else { return name }
            defer { free(result) }
            return String(cString: result)
        }
    }
}

/// The ELF objects the dynamic loader has loaded (the executable and its shared
/// libraries), with where each segment lies, from `dl_iterate_phdr`.
///
/// Only the loader's own records are read, under its lock: never `/proc/self/maps`
/// and never the bytes of a mapping. A mapping this process did not make (a store's
/// `-shm`, a memory-mapped data file) can be unmapped by another thread at any moment,
/// and reading it then kills the process (issue 18).
struct ProcessMaps {
    struct Module {
        var path: String
        /// What to subtract from a runtime address to get the file's virtual address
        /// (the load address; 0 for an executable that is not PIE).
        var bias: UInt
    }

    struct Mapping {
        var start: UInt
        var end: UInt
        var module: Module
    }

    var mappings: [Mapping] = []

    static func read() -> ProcessMaps {
        var maps = ProcessMaps()
        var capacity = 256
        while true {
            let buffer = UnsafeMutablePointer<ctxdebug_loaded_segment>.allocate(capacity: capacity)
            defer { buffer.deallocate() }
            let total = Int(ctxdebug_loaded_segments(buffer, Int32(capacity)))
            let filled = min(total, capacity)
            var paths: [String] = []
            for index in 0..<filled {
                let segment = buffer[index]
                paths.append(segment.path.map { String(cString: $0) } ?? "")
                free(segment.path)
            }
            // Objects loaded while we walked: walk again with room for all.
            if total > capacity {
                capacity = total + 64
                continue
            }
            let executable = executablePath()
            for index in 0..<filled {
                let segment = buffer[index]
                // The main executable has no name here; the vDSO has a name that is
                // not a file (no symbolizer for it: dladdr names its symbols).
                let path = paths[index].isEmpty ? executable : paths[index]
                guard let path, path.hasPrefix("/"), segment.end > segment.start else { continue }
                maps.mappings.append(
                    Mapping(start: segment.start, end: segment.end, module: Module(path: path, bias: segment.bias)))
            }
            return maps
        }
    }

    /// The path of this process's executable (`/proc/self/exe`, a symbolic link the
    /// kernel keeps; reading it touches no mapping).
    static func executablePath() -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    func module(containing address: UInt) -> Module? {
        mappings.first { $0.start <= address && address < $0.end }?.module
    }
}

/// Runs a program with posix_spawn and returns its standard output (stdin and stderr
/// are /dev/null). Not Foundation's `Process`: this must also work at exit and just
/// before a trap.
enum Subprocess {
    static func run(_ arguments: [String]) -> [UInt8]? {
        guard let program = arguments.first else { return nil }
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { return nil }
        _ = fcntl(fds[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(fds[1], F_SETFD, FD_CLOEXEC)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, fds[1], 1)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let status = posix_spawn(&pid, program, &actions, nil, argv, environ)
        close(fds[1])
        guard status == 0 else {
            close(fds[0])
            return nil
        }
        let output = WholeFile.readAll(fds[0])
        close(fds[0])
        var exitStatus: Int32 = 0
        while waitpid(pid, &exitStatus, 0) < 0 && errno == EINTR {}
        return output
    }
}
