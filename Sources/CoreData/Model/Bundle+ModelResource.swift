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
    /// A compiled mapping model (`"cdm"`) is the Xcode one, `name.xcmappingmodel`, which
    /// `NSMappingModel(contentsOf:)` reads.
    public func url(forModelResource name: String?, withExtension ext: String?) -> URL? {
        if let compiled = url(forResource: name, withExtension: ext) { return compiled }
        var directories: [URL] = []
        if let resources = resourceURL { directories.append(resources) }
        directories.append(bundleURL)
        directories += XcodeModelLocator.searchDirectories()
        if ext == "cdm" {
            guard let name else { return nil }
            let mapping = XcodeModelLocator.resourceURL(named: name, extension: "xcmappingmodel", in: directories)
            if mapping == nil {
                FileHandle.standardError.write(Data(
                    "CoreData: error: There is no compiled mapping model on Linux, and no \(name).xcmappingmodel in \(bundlePath) or the program's resources to read instead. Add it to the target's resources (Package.swift: resources: [.copy(\"\(name).xcmappingmodel\")]).\n".utf8))
            }
            return mapping
        }
        let found = name.map { XcodeModelLocator.modelURL(named: $0, in: directories) } ?? XcodeModelLocator.allModelURLs(in: directories).first
        if found == nil {
            let model = name.map { "\($0).xcdatamodeld" } ?? "a .xcdatamodeld"
            FileHandle.standardError.write(Data(
                "CoreData: error: There is no compiled model on Linux, and no \(model) in \(bundlePath) or the program's resources to read instead. Add \(model) to the target's resources (Package.swift: resources: [.copy(\"\(model)\")]).\n".utf8))
        }
        return found
    }

    /// `url(forResource: version, withExtension: "mom", subdirectory: "Model.momd")` on
    /// Linux, which `ctxdebug port` writes for it (also for `"omo"`, the optimized model):
    /// one version of a compiled model. Here the version's `.xcdatamodel` in the Xcode
    /// model `Model.xcdatamodeld`, found as `url(forModelResource:withExtension:)` finds
    /// the model; a subdirectory that is not a model is the resource lookup's.
    public func url(forModelResource name: String?, withExtension ext: String?, subdirectory subpath: String?) -> URL? {
        if let compiled = url(forResource: name, withExtension: ext, subdirectory: subpath) { return compiled }
        guard let subpath, let model = modelPackage(named: subpath) else { return nil }
        guard let name else { return ModelVersions.versionURLs(in: model).first }
        let version = model.appendingPathComponent(name + ".xcdatamodel")
        return FileManager.default.fileExists(atPath: version.path) ? version : nil
    }

    /// `urls(forResourcesWithExtension: "momd", subdirectory: nil)` on Linux, which
    /// `ctxdebug port` writes for it: the compiled models (`"momd"`: here the Xcode models,
    /// `.xcdatamodeld`, in this bundle and its resource bundles),
    /// or the versions of one (`"mom"` or `"omo"` in the subdirectory `Model.momd` or
    /// `Model.xcdatamodeld`: its `.xcdatamodel`s, in Xcode's order). Nil, as Foundation
    /// gives, when there is none.
    public func urls(forModelResourcesWithExtension ext: String?, subdirectory subpath: String?) -> [URL]? {
        let compiled: [URL]? = urls(forResourcesWithExtension: ext, subdirectory: subpath)
        if let compiled, !compiled.isEmpty { return compiled }
        let found: [URL]
        if let subpath, let model = modelPackage(named: subpath) {
            found = ModelVersions.versionURLs(in: model)
        } else if subpath == nil, ext == "momd" {
            // This bundle's own (with its resource bundles), as Foundation lists a bundle's.
            let own = [resourceURL, bundleURL].compactMap { $0 }
            found = XcodeModelLocator.allModelURLs(in: own).filter { $0.pathExtension == "xcdatamodeld" }
        } else {
            found = []
        }
        return found.isEmpty ? nil : found
    }

    /// The Xcode model a compiled model's folder name (`Model.momd`, or `Model.xcdatamodeld`
    /// as the plural lookup above names it) stands for.
    private func modelPackage(named subpath: String) -> URL? {
        let url = URL(fileURLWithPath: subpath)
        guard ["momd", "xcdatamodeld"].contains(url.pathExtension) else { return nil }
        let found = XcodeModelLocator.modelURL(named: url.deletingPathExtension().lastPathComponent, in: modelDirectories())
        return found?.pathExtension == "xcdatamodeld" ? found : nil
    }

    private func modelDirectories() -> [URL] {
        var directories: [URL] = []
        if let resources = resourceURL { directories.append(resources) }
        directories.append(bundleURL)
        return directories + XcodeModelLocator.searchDirectories()
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
    /// and `NSPersistentContainer(name:)` look. A framework's identifier ends in its
    /// product's name (`com.hexedbits.ExampleModel`): when a module of the program by that
    /// name has a resource bundle, that bundle is the framework's, and holds only its
    /// models. Never nil: an identifier that no bundle has gives the program's as well.
    public convenience init?(portedIdentifier identifier: String) {
        if let known = Bundle(identifier: identifier) {
            self.init(url: known.bundleURL)
            return
        }
        let product = String((identifier.split(separator: ".").last ?? "").map { $0.isLetter || $0.isNumber ? $0 : "_" })
        let linked = ProgramSymbols.resourceBundleModules
        if linked?.contains(product) ?? true,
            let framework = XcodeModelLocator.resourceBundleURL(ofModule: product, in: XcodeModelLocator.searchDirectories()) {
            self.init(url: framework)
            return
        }
        self.init(url: Bundle.main.bundleURL)
    }

    /// `Bundle(for: aClass)` on Linux, which `ctxdebug port` writes for it: the bundle of
    /// the module that defines `aClass`. On Apple platforms that is the framework or test
    /// bundle the class is in, which holds its resources (a test's stores and models); on
    /// Linux SwiftPM puts a module's resources in `<Package>_<Module>.resources` beside the
    /// executable, and Foundation's `Bundle(for:)` gives the main bundle. That resource
    /// bundle when the module has one; else, as a test bundle or framework without
    /// resources is on Apple platforms, a bundle that holds none (an empty folder of this
    /// process's, named after the module), so a search of it (JSQCoreDataKit looks for
    /// models in `Bundle(for: Self.self)` and expects none) finds nothing; Foundation's
    /// answer when that folder cannot be made.
    public convenience init(portedFor aClass: AnyClass) {
        let module = String(reflecting: aClass).split(separator: ".", maxSplits: 1).first.map(String.init) ?? ""
        if let url = XcodeModelLocator.resourceBundleURL(ofModule: module, in: XcodeModelLocator.searchDirectories()) {
            self.init(url: url)!
        } else if let empty = Self.emptyBundleURL(module: module) {
            self.init(url: empty)!
        } else {
            self.init(for: aClass)
        }
    }

    private static func emptyBundleURL(module: String) -> URL? {
        guard !module.isEmpty else { return nil }
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("ctxdebug-bundles-\(ProcessInfo.processInfo.processIdentifier)", isDirectory: true)
            .appendingPathComponent(module + ".bundle", isDirectory: true)
        do { try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true) } catch { return nil }
        return url
    }

    /// `bundleIdentifier` on Linux, which `ctxdebug port` writes for it: Foundation's when
    /// the bundle has one (its Info.plist's `CFBundleIdentifier`); else, as every app,
    /// framework and test bundle on Apple platforms has one and stacks name their store
    /// after it (AERecord's `Bundle.main.bundleIdentifier ?? Bundle(for: Stack.self).bundleIdentifier!`),
    /// a name of the bundle's own: the executable's for the main bundle, the folder's
    /// (without its extension) for another. SwiftPM's bundles on Linux have no Info.plist.
    public var portedBundleIdentifier: String? {
        if let identifier = bundleIdentifier { return identifier }
        if bundleURL.standardizedFileURL == Bundle.main.bundleURL.standardizedFileURL {
            return Bundle.main.executableURL?.deletingPathExtension().lastPathComponent ?? ProcessInfo.processInfo.processName
        }
        return bundleURL.deletingPathExtension().lastPathComponent
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
