// A libFuzzer target (Scripts/fuzz) under -D CTXDEBUG_FUZZ, and an ordinary main over
// regression and random inputs otherwise (Scripts/fuzz-smoke).
import FuzzSupport

#if CTXDEBUG_FUZZ
/// SwiftPM links every executable with main = <Target>_main, so libFuzzer's own main
/// is never linked: this is the entry point, and it hands over to libFuzzer's driver.
@_cdecl("FuzzObjectID_main")
func fuzzMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> Int32 {
    var argc = argc
    var argv = argv
    return FuzzDriver.run(&argc, &argv) { data, size in
        FuzzEntry.objectIDURI(size == 0 ? [] : Array(UnsafeBufferPointer(start: data, count: size)))
        return 0
    }
}
#else
@main
enum FuzzObjectID {
    static func main() {
        FuzzMain.run(name: "objectid-uri", FuzzEntry.objectIDURI)
    }
}
#endif
