@_spi(Runtime) @testable import ConcurrencyDebug
import Testing

/// Which frames of a stack are the runtime's: a printed report starts below them.
@Suite struct RuntimeFramesTests {
    static let library = "/src/ManagedContext/"

    init() {
        ConcurrencyDebug.registerRuntimeLibrary(sourceDirectory: Self.library, module: "ManagedContext")
    }

    func frame(_ function: String, _ file: String? = nil) -> StackFrame {
        StackFrame(address: 0, function: function, file: file, line: file == nil ? nil : 1)
    }

    @Test("A runtime operation under a lock: thunks, closures in private methods, Result(catching:) and the lock's own frames are the runtime's")
    func anOperationUnderTheContextsLock() {
        let frames = [
            frame("partial apply forwarder for closure #1 () -> Swift.Array<ManagedContext.ManagedObject> in ManagedContext.ManagedObject.relatedObjects(forRelationshipNamed: Swift.String) -> Swift.Array<ManagedContext.ManagedObject>", "/<compiler-generated>"),
            frame("closure #1 () throws(B) -> A in closure #1 (inout ()) -> sending () in ManagedContext.ContextGuard.(locked in _6D95178E8D9E7B13F031D79C9C47FFEC)<A, B where B: Swift.Error>(() throws(B) -> A) throws(B) -> A"),
            frame("(extension in Swift):Swift.Result< where A: ~Swift.Copyable>.init(catching: () throws(B) -> A) -> Swift.Result<A, B>"),
            frame("reabstraction thunk helper from @callee_guaranteed (@inout ()) -> () to @escaping @callee_guaranteed (@inout sending ()) -> sending (@out (), @error @out Swift.Never)"),
            frame("(extension in CtxdebugHelpers):CtxdebugHelpers.LockedValue< where A: ~Swift.Copyable>.withLock<A, B where B1: Swift.Error>((sending inout A) throws(B1) -> sending A1) throws(B1) -> A1"),
            frame("ManagedContext.ManagedObject.relatedObjects(forRelationshipNamed: Swift.String) -> Swift.Array<ManagedContext.ManagedObject>", Self.library + "ManagedObject.swift"),
            frame("closure #2 () -> () in App.(show in _3BA2D4BC965B9DAFFDA99303950E19A2)() -> ()", "/app/Sources/App/Show.swift"),
            frame("(extension in Swift):Swift.Result< where A: ~Swift.Copyable>.init(catching: () throws(B) -> A) -> Swift.Result<A, B>"),
        ]
        let marked = RuntimeFrames.marking(frames)
        #expect(marked.map(\.isRuntime) == [true, true, true, true, true, true, false, false])
    }

    @Test("A C-callable closure stored in a library's static property (the dispatch control's hooks) is the library's")
    func aHookClosureInAStaticInitializer() {
        // As symbolicated for a block an app queued with DispatchQueue.main.async under
        // `ctxdebug explore`: the hook's thunk has no file of its own.
        let frames = [
            frame(
                "@objc closure #1 (Swift.Optional<Swift.UnsafeMutableRawPointer>, Swift.Optional<@convention(c) (Swift.Optional<Swift.UnsafeMutableRawPointer>) -> ()>, Swift.Int32) -> Swift.Int32 in variable initialization expression of static ManagedContext.DispatchControl.(hooks in _505BD6AE8F0E3174A1E8A8D24C3D10F5) : __C.ctxdebug_dc_hooks",
                "/app/.build/debug/<compiler-generated>"),
            frame("closure #1 @Sendable () -> () in App.Store.importNotes() -> ()", "/app/Sources/App/Store.swift"),
        ]
        #expect(RuntimeFrames.marking(frames).map(\.isRuntime) == [true, false])
    }

    @Test("A closure of the user's, even one whose enclosing name mentions a library, is the user's")
    func aUsersClosure() {
        let frames = [
            frame("ManagedContext.ManagedObject.value(forKey: Swift.String) -> Any?", Self.library + "ManagedObject.swift"),
            frame("closure #1 (ManagedContext.ManagedObject) -> Swift.String in App.Export.run() -> ()", "/app/Export.swift"),
            frame("App.Export.run() -> ()", "/app/Export.swift"),
        ]
        #expect(RuntimeFrames.marking(frames).map(\.isRuntime) == [true, false, false])
    }
}

/// Which frame `ctxdebug explore` names as a scheduling point's site.
@Suite struct SiteFrameTests {
    static let library = "/src/ManagedContext/"
    static let control = "/src/CtxdebugDispatchControl/"

    init() {
        ConcurrencyDebug.registerRuntimeLibrary(sourceDirectory: Self.library, module: "ManagedContext")
        ConcurrencyDebug.registerRuntimeLibrary(sourceDirectory: Self.control, module: "CtxdebugDispatchControl")
    }

    func frame(_ function: String, _ file: String? = nil, _ line: Int? = nil) -> StackFrame {
        StackFrame(address: 0, function: function, file: file, line: line ?? (file == nil ? nil : 1))
    }

    @Test("XCTest's asyncAfter inside the control's dispatch_sync: the test's own line, not dispatch_control.c")
    func libraryFramesDeeperDownAreSkipped() {
        let frames = RuntimeFrames.marking([
            frame("closure #1 in ManagedContext.DispatchControl.hooks", Self.library + "DispatchControl.swift"),
            frame("dispatch_after", Self.control + "dispatch_control.c", 341),
            frame("Dispatch.DispatchQueue.asyncAfter(deadline: Dispatch.DispatchTime, execute: () -> ()) -> ()"),
            frame("XCTest.WaiterManager.startManaging(_: Swift.Double) -> ()"),
            frame("dispatch_sync", Self.control + "dispatch_control.c", 308),
            frame("XCTest.XCTestCase.wait(for: [XCTest.XCTestExpectation], timeout: Swift.Double) -> ()"),
            frame("AppTests.ExportTests.testExport() -> ()", "/app/Tests/AppTests/ExportTests.swift", 75),
        ])
        #expect(RuntimeFrames.siteFrame(frames)?.file == "/app/Tests/AppTests/ExportTests.swift")
        #expect(RuntimeFrames.siteFrame(frames)?.line == 75)
    }

    @Test("A stack wholly inside libraries without debug info: the first function below the runtime's")
    func noAppFrameNamesTheFunction() {
        let frames = RuntimeFrames.marking([
            frame("closure #1 in ManagedContext.DispatchControl.hooks", Self.library + "DispatchControl.swift"),
            frame("dispatch_async_f", Self.control + "dispatch_control.c", 295),
            frame("swift_task_enqueueGlobal"),
            frame("start_thread"),
        ])
        #expect(RuntimeFrames.siteFrame(frames)?.function == "swift_task_enqueueGlobal")
        #expect(RuntimeFrames.siteFrame(frames)?.file == nil)
    }
}
