import CtxdebugHelpers
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

@Suite struct WholeFileTests {
    let directory: String = {
        let path = NSTemporaryDirectory() + "/ctxdebug-wholefile-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }()

    @Test func writesAndReadsAFileWhole() throws {
        let path = directory + "/report.json"
        try WholeFile.write(Data("first".utf8), to: path)
        try WholeFile.write(Data("second".utf8), to: path)
        #expect(WholeFile.readText(path) == "second")
        #expect(WholeFile.read(path) == Array("second".utf8))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["report.json"], "no temporary file is left")
    }

    /// A write that fails leaves the file as it was, and no temporary file beside it.
    @Test func aFailedWriteLeavesTheOldFile() throws {
        struct Interrupted: Error {}
        let path = directory + "/export.csv"
        try WholeFile.write(Data("old".utf8), to: path)
        #expect(throws: Interrupted.self) {
            try WholeFile.write(to: path) { temporary in
                try Data("half a fi".utf8).write(to: URL(fileURLWithPath: temporary))
                throw Interrupted()
            }
        }
        #expect(WholeFile.readText(path) == "old")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["export.csv"])
    }

    @Test func aRenameThatFailsIsAMoveError() throws {
        let path = directory + "/a-directory"
        try FileManager.default.createDirectory(atPath: path + "/inside", withIntermediateDirectories: true)
        #expect(throws: WholeFile.MoveError.self) { try WholeFile.write(Data("x".utf8), to: path) }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["a-directory"])
    }

    @Test func aDirectoryIsNotReadAsAnEmptyFile() {
        #expect(WholeFile.read(directory) == nil)
        #expect(errno == EISDIR)
        #expect(WholeFile.read(directory + "/missing") == nil)
    }
}
