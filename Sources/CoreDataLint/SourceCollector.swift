import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Finds the Swift files to lint under the paths given: every `.swift` file, skipping
/// folders whose name starts with a dot (`.build`, `.build-release`, `.git`...), the
/// folders of dependency managers and Xcode's build products (`Pods`, `Carthage`,
/// `DerivedData`), and whatever the exclusion globs match.
public enum SourceCollector {
    /// Folders skipped wherever they are: other people's code and build products.
    public static let skippedFolders: Set<String> = ["Pods", "Carthage", "DerivedData"]

    /// The files, sorted, each once, as paths that start with the path given (without
    /// a leading `./`). A path that does not exist is an error. `excluding`: globs
    /// matched against each file's and folder's path relative to the PATH it is under
    /// (`*` also matches `/`; a folder matched is skipped whole).
    public static func swiftFiles(under paths: [String], excluding patterns: [String] = []) throws(LintError) -> [String] {
        try inputs(under: paths, excluding: patterns).swiftFiles
    }

    /// The Swift files, and the project files among them (`Linter.lint(files:projectFiles:)`):
    /// Xcode projects' `project.pbxproj` files, whose build settings may change the
    /// default actor isolation, and Core Data models' `contents` files
    /// (`Model.xcdatamodeld/Model.xcdatamodel/contents`), which name the entities' classes.
    public static func inputs(under paths: [String], excluding patterns: [String] = []) throws(LintError) -> (swiftFiles: [String], projectFiles: [String]) {
        var files: Set<String> = []
        var projects: Set<String> = []
        let manager = FileManager.default
        for path in paths {
            var isDirectory: ObjCBool = false
            guard manager.fileExists(atPath: path, isDirectory: &isDirectory) else {
                throw LintError(path: path, reason: "no such file or directory")
            }
            guard isDirectory.boolValue else {
                if !isExcluded(normalized(path), by: patterns) { files.insert(normalized(path)) }
                continue
            }
            guard let walker = manager.enumerator(atPath: path) else {
                throw LintError(path: path, reason: "cannot list the directory")
            }
            while let relative = walker.nextObject() as? String {
                let name = (relative as NSString).lastPathComponent
                let full = normalized(path.hasSuffix("/") ? path + relative : path + "/" + relative)
                if isFolder(full) {
                    if name.hasPrefix(".") || skippedFolders.contains(name) || isExcluded(relative, by: patterns) || isExcluded(full, by: patterns) {
                        walker.skipDescendants()
                    }
                } else if name.hasSuffix(".swift"), !isExcluded(relative, by: patterns), !isExcluded(full, by: patterns) {
                    files.insert(full)
                } else if name == "project.pbxproj" || isModelContents(full), !isExcluded(full, by: patterns) {
                    projects.insert(full)
                }
            }
        }
        return (files.sorted(), projects.sorted())
    }

    /// A Core Data model version's XML: `contents` in a `.xcdatamodel` folder.
    static func isModelContents(_ path: String) -> Bool {
        path.hasSuffix(".xcdatamodel/contents")
    }

    /// Whether the entry at `path` is a directory itself (not a link to one): what the
    /// enumerator's `fileAttributes[.type]` tells (Foundation reads it with `lstat` too),
    /// without the rest of the attributes (the owner's and group's names, dates, sizes)
    /// that it gathers for every entry: two thirds of the walk's time on item 8's tree,
    /// serial, before the first pass starts.
    private static func isFolder(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    /// Whether a glob matches the path, or the path is under a folder the glob names.
    public static func isExcluded(_ path: String, by patterns: [String]) -> Bool {
        patterns.contains { pattern in
            var pattern = pattern
            while pattern.hasPrefix("./") { pattern.removeFirst(2) }
            while pattern.hasSuffix("/") { pattern.removeLast() }
            return fnmatch(pattern, path, 0) == 0 || path.hasPrefix(pattern + "/")
        }
    }

    private static func normalized(_ path: String) -> String {
        var path = path
        while path.hasPrefix("./") { path.removeFirst(2) }
        return path
    }
}
