import Foundation


extension NSManagedObjectModel {
    /// Core Data's `init?(contentsOf:)`: the model at `url`. On Linux `url` is the
    /// Xcode model as it is on disk (a `.xcdatamodeld` folder, read at its current
    /// version, or a `.xcdatamodel` folder), not a compiled `.momd`. Returns nil when the
    /// model cannot be read, after printing why to stderr (the file and line, and what
    /// to do), as Core Data logs and returns nil.
    public convenience init?(contentsOf url: URL) {
        let loaded: NSManagedObjectModel
        do {
            loaded = try XcodeModelReader.load(from: url)
        } catch {
            Self.log("CoreData: error: Failed to load model at \(url.path): \(error)")
            return nil
        }
        self.init()
        adopt(loaded)
    }

    /// Core Data's `mergedModel(from:)`: one model with the entities of every model in
    /// `bundles` (nil: the main bundle and the running program's SwiftPM resource
    /// bundles). Nil, after printing why, when one does not load or two define an
    /// entity of the same name.
    public static func mergedModel(from bundles: [Bundle]?) -> NSManagedObjectModel? {
        let directories: [URL]
        if let bundles {
            directories = bundles.flatMap { b in [b.resourceURL, b.bundleURL].compactMap { $0 } }
        } else {
            directories = XcodeModelLocator.searchDirectories()
        }
        var entities: [NSEntityDescription] = []
        var owners: [String: String] = [:]
        for url in XcodeModelLocator.allModelURLs(in: directories) {
            let model: NSManagedObjectModel
            do {
                model = try XcodeModelReader.load(from: url)
            } catch {
                log("CoreData: error: Failed to load model at \(url.path): \(error)")
                return nil
            }
            for entity in model.entities {
                let name = entity.name ?? ""
                if let other = owners[name] {
                    log("CoreData: error: Can't merge models with two different entities named '\(name)' (\(other) and \(url.path)).")
                    return nil
                }
                owners[name] = url.path
                entities.append(entity)
            }
        }
        let merged = NSManagedObjectModel()
        merged.entities = entities
        return merged
    }

    /// Core Data's `mergedModel(from:forStoreMetadata:)`: the model in `bundles` (nil: the
    /// main bundle and the program's SwiftPM resource bundles) that a store with `metadata`
    /// was written with, found among every version of every model there (each
    /// `.xcdatamodel` of a `.xcdatamodeld`, not only its current one), as apps ask before
    /// migrating a store step by step. Nil when no version fits the store.
    public static func mergedModel(from bundles: [Bundle]?, forStoreMetadata metadata: [String: Any]) -> NSManagedObjectModel? {
        let directories = bundles.map { $0.flatMap { b in [b.resourceURL, b.bundleURL].compactMap { $0 } } } ?? XcodeModelLocator.searchDirectories()
        for url in XcodeModelLocator.allModelURLs(in: directories) {
            let versions = url.pathExtension == "xcdatamodeld" ? ModelVersions.versionURLs(in: url) : [url]
            for version in versions {
                guard let model = try? XcodeModelReader.load(from: version) else { continue }
                if model.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata) { return model }
            }
        }
        return nil
    }

    /// Takes the entities and identifiers of a model just read.
    private func adopt(_ other: NSManagedObjectModel) {
        entities = other.entities
        configurationMembers = other.configurationMembers
        versionIdentifiers = other.versionIdentifiers
        sourceURL = other.sourceURL
    }

    static func log(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }
}
