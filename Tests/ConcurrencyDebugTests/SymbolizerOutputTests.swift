@testable import ConcurrencyDebug
import Foundation
import Testing

/// How llvm-symbolizer's JSON becomes frames.
@Suite struct SymbolizerOutputTests {
    /// A library built without debug info for its own code (the toolchain's libXCTest.so)
    /// still carries crtstuff.c's compile unit: llvm-symbolizer names that unit, at line 0,
    /// for any address it cannot place. Seen under `ctxdebug explore -- swift test` as
    /// "dispatch-after at crtstuff.c:0 in generic specialization …" for XCTest's own call.
    @Test("A file at line 0 is no source position: the frame keeps its function, not the file")
    func lineZeroIsNoFile() throws {
        let json = """
        [{"Address":"0x1f2e0","ModuleName":"/usr/lib/swift/linux/libXCTest.so","Symbol":[\
        {"Column":0,"Discriminator":0,"FileName":"crtstuff.c","FunctionLinkageName":"$s6XCTest13WaiterManagerC","FunctionName":"$s6XCTest13WaiterManagerC","Line":0,"StartAddress":"","StartFileName":"","StartLine":0}]},\
        {"Address":"0x100","ModuleName":"/app/App","Symbol":[\
        {"Column":7,"Discriminator":0,"FileName":"/app/Sources/App/Export.swift","FunctionLinkageName":"main","FunctionName":"main","Line":41,"StartAddress":"","StartFileName":"","StartLine":0}]},\
        {"Address":"0x200","ModuleName":"/app/App","Symbol":[\
        {"Column":0,"Discriminator":0,"FileName":"/app/.build/debug/<compiler-generated>","FunctionLinkageName":"thunk","FunctionName":"thunk","Line":0,"StartAddress":"","StartFileName":"","StartLine":0}]}]
        """
        let frames = Symbolicator.frames(fromSymbolizerJSON: Data(json.utf8))
        #expect(frames.count == 3)
        let library = try #require(frames[0].first)
        #expect(library.file == nil)
        #expect(library.line == nil)
        #expect(library.function != nil)
        let app = try #require(frames[1].first)
        #expect(app.file == "/app/Sources/App/Export.swift")
        #expect(app.line == 41)
        // A thunk's "<compiler-generated>" file is how RuntimeFrames knows it for one.
        let thunk = try #require(frames[2].first)
        #expect(thunk.file == "/app/.build/debug/<compiler-generated>")
    }
}
