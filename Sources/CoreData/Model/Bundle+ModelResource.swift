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

    /// `Bundle(identifier:)` on Linux, which `ctxdebug port` writes for it: the bundle
    /// Foundation knows by that identifier, else one of the running program (its main
    /// bundle's folder). On Apple platforms the identifier names the app or a framework
    /// whose resources hold its models ("Locating a bundle by identifier" in Apple's Bundle
    /// documentation); on Linux the program is one binary, with no framework bundles, and
    /// its models are in its SwiftPM resources, where `url(forModelResource:withExtension:)`
    /// and `NSPersistentContainer(name:)` look. Never nil: an identifier that no bundle has
    /// gives the program's as well.
    public convenience init?(portedIdentifier identifier: String) {
        self.init(url: (Bundle(identifier: identifier) ?? Bundle.main).bundleURL)
    }

    /// `Bundle(for: aClass)` on Linux, which `ctxdebug port` writes for it: the bundle of
    /// the module that defines `aClass`. On Apple platforms that is the framework or test
    /// bundle the class is in, which holds its resources (a test's stores and models); on
    /// Linux SwiftPM puts a module's resources in `<Package>_<Module>.resources` beside the
    /// executable, and Foundation's `Bundle(for:)` gives the main bundle. That resource
    /// bundle when the module has one; else Foundation's answer.
    public convenience init(portedFor aClass: AnyClass) {
        let module = String(reflecting: aClass).split(separator: ".", maxSplits: 1).first.map(String.init) ?? ""
        if let url = XcodeModelLocator.resourceBundleURL(ofModule: module, in: XcodeModelLocator.searchDirectories()) {
            self.init(url: url)!
        } else {
            self.init(for: aClass)
        }
    }

    /// `Bundle.main.url(forResource:withExtension:)` of a resource that is not a model
    /// (a seed store, a JSON file), on Linux, which `ctxdebug port` writes for it: the main
    /// bundle's own, else the resource in the program's SwiftPM resource bundles. On Apple
    /// platforms an app's resources are in its main bundle; on Linux SwiftPM puts a target's
    /// resources in a `Package_Target.resources` bundle beside the executable, which
    /// `Bundle.main` does not search. Nil when neither has it, as Foundation's lookup gives.
    public func url(forPortedResource name: String?, withExtension ext: String?) -> URL? {
        if let own = url(forResource: name, withExtension: ext) { return own }
        guard let name, !name.isEmpty else { return nil }
        var directories: [URL] = []
        if let resources = resourceURL { directories.append(resources) }
        directories.append(bundleURL)
        return XcodeModelLocator.resourceURL(named: name, extension: ext, in: directories + XcodeModelLocator.searchDirectories())
    }

    /// `Bundle.main.path(forResource:ofType:)` on Linux: `url(forPortedResource:withExtension:)`'s path.
    public func path(forPortedResource name: String?, ofType ext: String?) -> String? {
        url(forPortedResource: name, withExtension: ext)?.path
    }
}

extension Bundle {
    /// Apple's `urls(forResourcesWithExtension:subdirectory:)`, which returns `[URL]?`, where
    /// Foundation on Linux returns `[NSURL]?`: code written for Apple's
    /// (`compactMap { name -> [URL]? in bundle.urls(…) }`) compiles and gets the same
    /// files. Disfavored: where the type is not asked for, Foundation's is used as before.
    @_disfavoredOverload
    public func urls(forResourcesWithExtension ext: String?, subdirectory subpath: String?) -> [URL]? {
        let found: [NSURL]? = urls(forResourcesWithExtension: ext, subdirectory: subpath)
        return found?.map { $0 as URL }
    }
}
