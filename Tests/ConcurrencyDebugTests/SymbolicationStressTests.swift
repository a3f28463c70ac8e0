import ConcurrencyDebug
import Foundation
import TestSupport
import Testing

/// The debugger must never crash the program it watches (issue 18, part 1).
///
/// Symbolication used to read `/proc/self/maps` and then dereference the first bytes
/// of every file mapping at offset 0, to read its ELF header: a mapping another
/// thread unmapped in between (a store's `-shm`, a memory-mapped data file) killed
/// the process with SIGSEGV at exit, and no report was written.
@Suite("Symbolication under mapping churn")
struct SymbolicationStressTests {
    /// 100 child processes, each with threads mapping and unmapping files the whole
    /// time it reports violations and exits; every one writes its report and exits
    /// 66. The children run a few at a time. One in ten symbolicates with
    /// llvm-symbolizer (file:line); the others with `CTXDEBUG_SYMBOLIZER=none`
    /// (dladdr names), which walks the same loaded objects and costs no child
    /// process, so the whole test takes a few seconds.
    @Test("Report mode writes its report and exits 66 while other threads map and unmap files, 100 runs")
    func reportModeSurvivesMappingChurn() async throws {
        let runs = 100
        let parallel = 8
        let reports = (0..<runs).map { temporaryPath("churn-\($0).json") }
        defer {
            for path in reports {
                unlink(path)
                for index in 0..<churnThreads { unlink("\(path)-map-\(index)") }
            }
        }
        await withTaskGroup(of: Void.self) { group in
            var next = 0
            func start() {
                guard next < runs else { return }
                let path = reports[next]
                let withSymbolizer = next % 10 == 0
                next += 1
                group.addTask {
                    await #expect(processExitsWith: .exitCode(66)) { [path = path as String, withSymbolizer = withSymbolizer as Bool] in
                        mappingChurnChild(reportPath: path, withSymbolizer: withSymbolizer)
                    }
                }
            }
            for _ in 0..<parallel { start() }
            while await group.next() != nil { start() }
        }
        var written = 0
        let site = line(of: "CHURN-SITE-GET")
        for (index, path) in reports.enumerated() {
            guard let data = FileManager.default.contents(atPath: path),
                let report = try? JSONDecoder().decode(ViolationReportFile.self, from: data)
            else { continue }
            #expect(report.distinctCount == 2, "\(path)")
            #expect(report.violations.allSatisfy { !$0.frames.isEmpty }, "every violation is symbolicated")
            if index % 10 == 0 {
                // llvm-symbolizer, through the loaded objects' load addresses: file:line.
                #expect(
                    report.violations.contains { v in
                        v.frames.contains { $0.file?.hasSuffix("SymbolicationStressTests.swift") == true && $0.line == site }
                    }, "the stack names the access: \(report.violations.first?.frames.map(\.formatted) ?? [])")
            } else {
                // dladdr only: the executable's symbols are not exported, so its
                // frames name their binary; libswiftDispatch's exported ones are named.
                #expect(
                    report.violations.allSatisfy { v in
                        v.frames.contains { $0.moduleName == "ctxdebugPackageTests.xctest" }
                            && v.frames.contains { $0.function?.hasPrefix("Dispatch.DispatchQueue.sync") == true }
                    },
                    "the stack names the accessor: \(report.violations.first?.frames.map(\.formatted) ?? [])")
            }
            written += 1
        }
        #expect(written == runs, "\(written) of \(runs) runs wrote their report")
    }
}

private let churnThreads = 4

/// Threads that map and unmap files without pause until the process exits: half of
/// them with mmap(2) on a file of their own, half with Foundation's
/// `Data(contentsOf:options: .alwaysMapped)`, as a program reading data files does.
/// Each mapping starts at file offset 0, as an ELF file's first mapping does.
private func startMappingChurn(threads: Int, files prefix: String) {
    let ready = DispatchSemaphore(value: 0)
    for index in 0..<threads {
        let path = "\(prefix)-map-\(index)"
        let bytes = [UInt8](repeating: UInt8(index), count: 3 * 4096)
        precondition(FileManager.default.createFile(atPath: path, contents: Data(bytes)), "cannot create \(path)")
        let thread = Thread {
            let url = URL(fileURLWithPath: path)
            var signalled = false
            while true {
                if index % 2 == 0 {
                    let fd = open(path, O_RDONLY)
                    precondition(fd >= 0)
                    let size = bytes.count
                    let address = mmap(nil, size, PROT_READ, MAP_SHARED, fd, 0)
                    close(fd)
                    precondition(address != MAP_FAILED)
                    precondition(address!.load(as: UInt8.self) == UInt8(index))
                    pause(microseconds: 100)  // mapped for a while
                    munmap(address, size)
                } else {
                    let data = try! Data(contentsOf: url, options: .alwaysMapped)
                    precondition(data.first == UInt8(index))
                    pause(microseconds: 100)  // mapped for a while (the Data's lifetime)
                }
                pause(microseconds: 100)  // and unmapped for a while
                if !signalled {
                    signalled = true
                    ready.signal()
                }
            }
        }
        thread.start()
    }
    for _ in 0..<threads { ready.wait() }
}

/// Load, not ordering: the churn threads give up the CPU between steps, so that each
/// mapping spends time both mapped and unmapped and eight children at once do not
/// starve each other of two cores. Nothing waits on this for correctness.
private func pause(microseconds: Int) {
    var request = timespec(tv_sec: 0, tv_nsec: microseconds * 1000)
    nanosleep(&request, nil)
}

private func mappingChurnChild(reportPath: String, withSymbolizer: Bool) {
    if !withSymbolizer { ConcurrencyDebug.Variable.symbolizer.set("none") }
    ConcurrencyDebug.Variable.set([.concurrency: "1", .onViolation: "report", .report: reportPath])
    startMappingChurn(threads: churnThreads, files: reportPath)
    let owner = QueueIdentity.makePrivate(label: "test.churn-owner")
    let item = FakeItem(owner: owner)
    DispatchQueue(label: "test.churn-offender").sync {
        _ = item.title  // CHURN-SITE-GET
        item.title = "changed"  // CHURN-SITE-SET
    }
    // Returning exits the process: the exit hook symbolicates and writes the report
    // while the threads above go on mapping and unmapping.
}
