public import Foundation

extension Bundle {
    /// Where `url(forResource: name, withExtension: "momd")` finds the compiled model in an
    /// app bundle, on Linux, which has no compiled models: `ctxdebug port` writes this
    /// call for that one (and for `"mom"`). It returns the bundle's own `name.momd` or
    /// `name.mom` if there is one; else the Xcode model `name.xcdatamodeld` (or
    /// `.xcdatamodel`) in this bundle, its resource bundles, or the program's resources
    /// (as `NSPersistentContainer(name:)` looks), which `NSManagedObjectModel(contentsOf:)`
    /// reads. Nil, as Foundation's lookup gives, when there is none, after a
    /// `CoreData: error:` line that says what to add. A nil `name` finds the first model.
    public func url(forModelResource name: String?, withExtension ext: String?) -> URL? {
        if let compiled = url(forResource: name, withExtension: ext) { return compiled }
        var directories: [URL] = []
        if let resources = resourceURL { directories.append(resources) }
        directories.append(bundleURL)
        directories += XcodeModelLocator.searchDirectories()
        let found = name.map { XcodeModelLocator.modelURL(named: $0, in: directories) } ?? XcodeModelLocator.allModelURLs(in: directories).first
        if found == nil {
            let model = name.map { "\($0).xcdatamodeld" } ?? "a .xcdatamodeld"
            FileHandle.standardError.write(Data(
                "CoreData: error: There is no compiled model on Linux, and no \(model) in \(bundlePath) or the program's resources to read instead. Add \(model) to the target's resources (Package.swift: resources: [.copy(\"\(model)\")]).\n".utf8))
        }
        return found
    }

    /// `path(forResource: name, ofType: "momd")` on Linux: `url(forModelResource:withExtension:)`'s path.
    public func path(forModelResource name: String?, ofType ext: String?) -> String? {
        url(forModelResource: name, withExtension: ext)?.path
    }
}
