import Foundation
import TestSupport

/// The `main` of a fuzz target in an ordinary build (no `-D CTXDEBUG_FUZZ`): runs the
/// entry point over files and directories of inputs (the regression inputs), then
/// over random inputs and mutations of those files, in-process. Not fuzzing: a smoke
/// pass that proves the target builds, runs, and that no recorded crash came back.
///
///     FuzzJournalReader [--random N] [--seed S] PATH...
public enum FuzzMain {
    public static func run(name: String, _ entry: ([UInt8]) -> Void) -> Never {
        var arguments = Array(CommandLine.arguments.dropFirst())
        var random = 200
        var seed = UInt64(Date().timeIntervalSince1970 * 1000)
        var paths: [String] = []
        while !arguments.isEmpty {
            let a = arguments.removeFirst()
            switch a {
            case "--random":
                guard let n = Int(arguments.isEmpty ? "" : arguments.removeFirst()) else { usage(name) }
                random = n
            case "--seed":
                guard let n = UInt64(arguments.isEmpty ? "" : arguments.removeFirst()) else { usage(name) }
                seed = n
            case "-h", "--help": usage(name)
            default: paths.append(a)
            }
        }
        var inputs: [(String, [UInt8])] = []
        for path in paths {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
                FileHandle.standardError.write(Data("\(name): no such file or directory: \(path)\n".utf8))
                exit(64)
            }
            let files = isDirectory.boolValue
                ? ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted().filter { !$0.hasPrefix(".") && $0 != "README.md" }
                    .map { "\(path)/\($0)" }
                : [path]
            for file in files {
                guard let data = FileManager.default.contents(atPath: file) else { continue }
                inputs.append((file, Array(data)))
            }
        }
        for (file, bytes) in inputs {
            FileHandle.standardError.write(Data("\(name): \(file)\n".utf8))
            entry(bytes)
        }
        var rng = SplitMix(state: seed)
        for i in 0..<random {
            var bytes: [UInt8]
            if !inputs.isEmpty && i % 2 == 1 {
                // A mutation of a regression input: a few bytes changed, cut or grown.
                bytes = inputs[Int.random(in: 0..<inputs.count, using: &rng)].1
                for _ in 0..<Int.random(in: 1...4, using: &rng) where !bytes.isEmpty {
                    switch Int.random(in: 0..<3, using: &rng) {
                    case 0: bytes[Int.random(in: 0..<bytes.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng)
                    case 1: bytes.removeLast(Int.random(in: 0...bytes.count, using: &rng))
                    default: bytes.insert(UInt8.random(in: 0...255, using: &rng), at: Int.random(in: 0...bytes.count, using: &rng))
                    }
                }
            } else {
                bytes = (0..<Int.random(in: 0...300, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
            }
            entry(bytes)
        }
        print("\(name): \(inputs.count) regression inputs and \(random) random inputs (seed \(seed)), no crash")
        exit(0)
    }

    private static func usage(_ name: String) -> Never {
        FileHandle.standardError.write(Data("usage: \(name) [--random N] [--seed S] PATH...\n".utf8))
        exit(64)
    }
}

#if CTXDEBUG_FUZZ
/// libFuzzer's driver, `int LLVMFuzzerRunDriver(int *argc, char ***argv,
/// int (*cb)(const uint8_t *, size_t))` from compiler-rt (LLVM 11 and later), linked by
/// `-sanitize=fuzzer`. Declared by its symbol name: its arguments are pointers, passed
/// the same way by the Swift and C conventions on x86-64 and arm64.
@_silgen_name("LLVMFuzzerRunDriver")
private func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<Int32>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32
) -> Int32

public enum FuzzDriver {
    public static func run(
        _ argc: UnsafeMutablePointer<Int32>,
        _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
        _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32
    ) -> Int32 {
        LLVMFuzzerRunDriver(argc, argv, callback)
    }
}
#endif
