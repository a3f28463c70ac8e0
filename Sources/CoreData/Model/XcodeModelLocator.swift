import Foundation

/// Finds Xcode models where a running program has them: in `Bundle.main`'s resources,
/// and in the resource bundles of its SwiftPM targets (`Package_Target.resources`
/// folders next to the executable on Linux). SwiftPM copies a `.xcdatamodeld` declared
/// with `.copy(...)` or `.process(...)` there as it is (on Linux `.process` does not
/// compile it), so the model is found as a folder of XML, not as Core Data's `.momd`.
enum XcodeModelLocator {
    /// The model named `name` (`name.xcdatamodeld`, else `name.xcdatamodel`), for
    /// `NSPersistentContainer(name:)`, as Core Data finds `name.momd` in the app bundle.
    static func modelURL(named name: String) -> URL? {
        modelURL(named: name, in: searchDirectories())
    }

    /// The model named `name` in the first of `directories` (or of their resource
    /// bundles, or their immediate subfolders) that has one.
    static func modelURL(named name: String, in directories: [URL]) -> URL? {
        let fm = FileManager.default
        for root in roots(directories) {
            for ext in ["xcdatamodeld", "xcdatamodel"] {
                let candidate = root.appendingPathComponent("\(name).\(ext)")
                if fm.fileExists(atPath: candidate.path) { return candidate }
            }
        }
        return nil
    }

    /// The resource `name.ext` (`name` alone when `ext` is nil or empty) in the first of
    /// `directories` (or of their resource bundles, or their immediate subfolders) that has it.
    static func resourceURL(named name: String, extension ext: String?, in directories: [URL]) -> URL? {
        let file = (ext?.isEmpty ?? true) ? name : "\(name).\(ext!)"
        return roots(directories).map { $0.appendingPathComponent(file) }.first { FileManager.default.fileExists(atPath: $0.path) }
    }

    /// Every model in `directories` and their resource bundles: each `.xcdatamodeld`,
    /// and each `.xcdatamodel` that is not a version inside one.
    static func allModelURLs(in directories: [URL]) -> [URL] {
        var found: [URL] = []
        var seen: Set<String> = []
        for root in roots(directories) {
            for entry in contents(of: root) where ["xcdatamodeld", "xcdatamodel"].contains(entry.pathExtension) {
                if seen.insert(entry.standardizedFileURL.path).inserted { found.append(entry) }
            }
        }
        return found
    }

    /// Where a program's models are: `Bundle.main`'s resources and bundle folder, the
    /// executable's folder (with the `*.resources` bundles SwiftPM puts there).
    static func searchDirectories() -> [URL] {
        var directories: [URL] = []
        if let resources = Bundle.main.resourceURL { directories.append(resources) }
        directories.append(Bundle.main.bundleURL)
        if let executable = Bundle.main.executableURL?.resolvingSymlinksInPath() {
            directories.append(executable.deletingLastPathComponent())
        }
        var seen: Set<String> = []
        return directories.filter { seen.insert($0.standardizedFileURL.path).inserted }
    }

    /// The resource bundle SwiftPM made for `module` in `directories`:
    /// `<Package>_<module>.resources`, the package being the one most bundles there are of
    /// (a package's name may itself hold a `_`: then a bundle whose name is the only one to
    /// end in `_<module>.resources`). Nil when the module has none.
    static func resourceBundleURL(ofModule module: String, in directories: [URL]) -> URL? {
        guard !module.isEmpty else { return nil }
        let bundles = directories.flatMap(contents(of:)).filter { $0.pathExtension == "resources" && isDirectory($0) }
        var packages: [String: Int] = [:]
        for b in bundles {
            if let prefix = b.lastPathComponent.split(separator: "_", maxSplits: 1).first { packages[String(prefix), default: 0] += 1 }
        }
        if let package = packages.max(by: { ($0.value, $1.key) < ($1.value, $0.key) })?.key,
            let exact = bundles.first(where: { $0.lastPathComponent == "\(package)_\(module).resources" }) {
            return exact
        }
        let ending = bundles.filter { $0.lastPathComponent.hasSuffix("_\(module).resources") }
        return ending.count == 1 ? ending[0] : nil
    }

    /// The folders to look in: each directory, the resource bundles in it
    /// (`*.resources`, `*.bundle`), and the immediate subfolders of those that are
    /// not models themselves (`.process` of a folder may keep a level).
    static func roots(_ directories: [URL]) -> [URL] {
        var roots: [URL] = []
        let executableFolder = Bundle.main.executableURL?.resolvingSymlinksInPath().deletingLastPathComponent().standardizedFileURL.path
        for directory in directories {
            roots.append(directory)
            // The build folder the program runs from holds every target's bundles; only its own are its resources.
            let linked = directory.standardizedFileURL.path == executableFolder ? ProgramSymbols.resourceBundleModules : nil
            let bundles = contents(of: directory).filter { ["resources", "bundle"].contains($0.pathExtension) && isPartOfProgram($0, linkedModules: linked) }
            for bundle in bundles {
                roots.append(bundle)
                roots += contents(of: bundle).filter { isDirectory($0) && !["xcdatamodeld", "xcdatamodel"].contains($0.pathExtension) }
            }
        }
        return roots
    }

    /// Whether the resource bundle at `url` is one the running program has, as an app's
    /// bundle holds only its own targets' resources: a SwiftPM bundle
    /// (`<Package>_<Target>.resources`) of a module linked into the program. A SwiftPM
    /// build folder holds the bundles of every target built there, and a model of a test
    /// target or another executable is not the program's (`mergedModel(from: nil)` would
    /// merge two models that define the same entity, and refuse). Every bundle is when
    /// the linked modules are not known (`linkedModules` nil).
    static func isPartOfProgram(_ url: URL, linkedModules: Set<String>?) -> Bool {
        guard let linkedModules, url.pathExtension == "resources" else { return true }
        let stem = url.deletingPathExtension().lastPathComponent
        let spelled = String(stem.map { $0.isLetter || $0.isNumber ? $0 : "_" })
        return linkedModules.contains { spelled.hasSuffix("_" + $0) }
    }

    private static func contents(of directory: URL) -> [URL] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).sorted().map { directory.appendingPathComponent($0) }
    }

    private static func isDirectory(_ url: URL) -> Bool {
        var isDir: ObjCBool = false
        return FileManager.default.fileExists(atPath: url.path, isDirectory: &isDir) && isDir.boolValue
    }
}
