import Foundation

/// The separate apps in one lint run. A book's or a sample collection's repository holds
/// many projects, each with its own `CoreDataStack` and view controllers of the same
/// names; one index over all of them lets one app's facts speak for another's (the
/// chapter's final export, called from a background context, hid the starter's
/// main-queue export). So files are grouped by the topmost folder on their path, below
/// the files' common folder, that holds an Xcode project or workspace or a
/// `Package.swift`, and each group is linted with an index of its own. Files under no
/// such folder are one group together; a run whose common folder is itself a project
/// is one group, as before.
enum ProjectGroups {
    struct Group {
        /// The project's folder; nil for the files under none.
        var root: String?
        var files: [String]
    }

    /// `paths` in groups, each group's files in their given order, the groups in the
    /// order of their first file.
    static func split(_ paths: [String], isProjectFolder: (String) -> Bool = Self.holdsProject) -> [Group] {
        let folders = paths.map { (URL(fileURLWithPath: $0).standardizedFileURL.path as NSString).deletingLastPathComponent }
        let common = commonFolder(folders)
        var groups: [Group] = []
        var indexByRoot: [String?: Int] = [:]
        var cache: [String: Bool] = [:]
        func isProject(_ folder: String) -> Bool {
            if let known = cache[folder] { return known }
            let answer = isProjectFolder(folder)
            cache[folder] = answer
            return answer
        }
        for (path, folder) in zip(paths, folders) {
            let root = topmostProjectFolder(of: folder, below: common, isProject: isProject)
            if let i = indexByRoot[root] {
                groups[i].files.append(path)
            } else {
                indexByRoot[root] = groups.count
                groups.append(Group(root: root, files: [path]))
            }
        }
        return groups
    }

    /// The highest folder from `common` (itself included) down to `folder` that holds a project.
    private static func topmostProjectFolder(of folder: String, below common: String, isProject: (String) -> Bool) -> String? {
        var chain: [String] = []
        var current = folder
        while true {
            chain.append(current)
            if current == common || current == "/" || !current.hasPrefix(common) { break }
            current = (current as NSString).deletingLastPathComponent
        }
        return chain.reversed().first(where: isProject)
    }

    static func commonFolder(_ folders: [String]) -> String {
        guard var common = folders.first?.split(separator: "/", omittingEmptySubsequences: true) else { return "/" }
        for folder in folders.dropFirst() {
            let parts = folder.split(separator: "/", omittingEmptySubsequences: true)
            var n = 0
            while n < common.count && n < parts.count && common[n] == parts[n] { n += 1 }
            common = Array(common[..<n])
        }
        return "/" + common.joined(separator: "/")
    }

    /// Whether `folder` holds an `.xcodeproj`, a `.xcworkspace` or a `Package.swift`.
    static func holdsProject(_ folder: String) -> Bool {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        return names.contains { $0 == "Package.swift" || $0.hasSuffix(".xcodeproj") || $0.hasSuffix(".xcworkspace") }
    }
}
