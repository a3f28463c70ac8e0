import CtxdebugHelpers
import ExploreModel
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Where failing schedules are written (`--schedule-dir`, default `.ctxdebug/explore`).
enum ExploreScheduleDirectory {
    /// Why files cannot be written into `directory` (made when missing), or nil when
    /// they can: checked before exploring, so a long exploration does not end with a
    /// lost schedule.
    static func writeProblem(_ directory: String) -> String? {
        var isDirectory: ObjCBool = false
        var existing = URL(fileURLWithPath: directory).standardizedFileURL
        while !FileManager.default.fileExists(atPath: existing.path, isDirectory: &isDirectory) {
            let parent = existing.deletingLastPathComponent()
            if parent.path == existing.path { return "no part of it exists" }
            existing = parent
        }
        if !isDirectory.boolValue { return "\(existing.path) is not a directory" }
        return access(existing.path, W_OK | X_OK) == 0 ? nil : "\(existing.path): \(String(cString: strerror(errno)))"
    }
}
