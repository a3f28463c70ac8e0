import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Pins this process to one CPU. Glibc's `sched_setaffinity` is declared only under
/// `_GNU_SOURCE`, which Swift's Glibc module does not set, so it is looked up by name.
enum CPUAffinity {
    private typealias Affinity = @convention(c) (pid_t, Int, UnsafeMutableRawPointer) -> Int32

    /// Restricts the calling thread, and every thread it starts from now on, to the
    /// lowest-numbered CPU it may run on now. Call it before any other thread starts:
    /// threads started earlier keep their own mask. Returns the CPU.
    static func pinToFirstAllowedCPU() throws -> Int {
        let handle = dlopen(nil, RTLD_NOW)
        guard let get = dlsym(handle, "sched_getaffinity"), let set = dlsym(handle, "sched_setaffinity") else {
            throw BenchError("sched_getaffinity or sched_setaffinity is missing from this C library: the one-core figures need them.")
        }
        let getAffinity = unsafeBitCast(get, to: Affinity.self), setAffinity = unsafeBitCast(set, to: Affinity.self)
        var mask = [UInt64](repeating: 0, count: 16)  // cpu_set_t: 1024 bits
        guard mask.withUnsafeMutableBytes({ getAffinity(0, $0.count, $0.baseAddress!) }) == 0 else {
            throw BenchError("sched_getaffinity failed: \(String(cString: strerror(errno))).")
        }
        guard let word = mask.firstIndex(where: { $0 != 0 }) else { throw BenchError("sched_getaffinity gave no CPU.") }
        let cpu = word * 64 + mask[word].trailingZeroBitCount
        var one = [UInt64](repeating: 0, count: 16)
        one[word] = UInt64(1) << UInt64(cpu % 64)
        guard one.withUnsafeMutableBytes({ setAffinity(0, $0.count, $0.baseAddress!) }) == 0 else {
            throw BenchError("sched_setaffinity to CPU \(cpu) failed: \(String(cString: strerror(errno))).")
        }
        return cpu
    }
}
