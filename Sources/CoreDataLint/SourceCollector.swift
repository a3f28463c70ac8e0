import Foundation

/// Finds the Swift files to lint under the paths given: every `.swift` file, skipping
/// folders whose name starts with a dot (`.build`, `.build-release`, `.git`...).
public enum SourceCollector {
    /// The files, sorted, each once, as paths that start with the path given (without
    /// a leading `./`). A path that does not exist is an error.
    public static func swiftFiles(under paths: [String]) throws(LintError) -> [String] {
        var files: Set<String> = []
        let manager = FileManager.default
        for path in paths {
            var isDirectory: ObjCBool = false
            guard manager.fileExists(atPath: path, isDirectory: &isDirectory) else {
                throw LintError(path: path, reason: "no such file or directory")
            }
            guard isDirectory.boolValue else {
                files.insert(normalized(path))
                continue
            }
            guard let walker = manager.enumerator(atPath: path) else {
                throw LintError(path: path, reason: "cannot list the directory")
            }
            while let relative = walker.nextObject() as? String {
                let name = (relative as NSString).lastPathComponent
                if walker.fileAttributes?[.type] as? FileAttributeType == .typeDirectory {
                    if name.hasPrefix(".") { walker.skipDescendants() }
                } else if name.hasSuffix(".swift") {
                    files.insert(normalized(path.hasSuffix("/") ? path + relative : path + "/" + relative))
                }
            }
        }
        return files.sorted()
    }

    private static func normalized(_ path: String) -> String {
        var path = path
        while path.hasPrefix("./") { path.removeFirst(2) }
        return path
    }
}
