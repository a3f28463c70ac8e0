@_spi(CoreData) import ManagedContext
import Foundation
import XcodeModel

/// The versions of a model a store may have been written with: the `.xcdatamodel`
/// versions of the model's own `.xcdatamodeld` (in Xcode's order, "Model", "Model 2",
/// …, "Model 10"), then those of the other models in the program's bundles.
enum ModelVersions {
    struct Version {
        let name: String
        let url: URL
        let model: NSManagedObjectModel
        /// The version `.xccurrentversion` names, or the model the coordinator uses.
        let isCurrent: Bool
    }

    static func candidates(for destination: NSManagedObjectModel) -> [Version] {
        var result: [Version] = []
        var seen: Set<String> = []
        let destinationVersion = destination.sourceURL.flatMap(versionURL(of:))?.standardizedFileURL.path
        var packages: [URL] = []
        if let own = destination.sourceURL.flatMap(package(of:)) { packages.append(own) }
        packages += XcodeModelLocator.allModelURLs(in: XcodeModelLocator.searchDirectories()).filter { $0.pathExtension == "xcdatamodeld" }
        for modeld in packages {
            for url in versionURLs(in: modeld) where seen.insert(url.standardizedFileURL.path).inserted {
                let isDestination = url.standardizedFileURL.path == destinationVersion
                let model = isDestination ? destination : (try? XcodeModelReader.load(from: url))
                guard let model else { continue }
                result.append(Version(name: url.deletingPathExtension().lastPathComponent, url: url, model: model, isCurrent: isDestination))
            }
        }
        return result
    }

    /// The `.xcdatamodeld` a model's file is (or is a version in).
    static func package(of url: URL) -> URL? {
        if url.pathExtension == "xcdatamodeld" { return url }
        let parent = url.deletingLastPathComponent()
        return parent.pathExtension == "xcdatamodeld" ? parent : nil
    }

    /// The version file a model was read from (the current version of a `.xcdatamodeld`).
    static func versionURL(of url: URL) -> URL? {
        url.pathExtension == "xcdatamodeld" ? try? XcodeModelFile.currentVersion(of: url) : url
    }

    static func versionURLs(in modeld: URL) -> [URL] {
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: modeld.path)) ?? []).filter { $0.hasSuffix(".xcdatamodel") }
        return names.sorted { $0.dropLast(12).compare($1.dropLast(12), options: [.numeric]) == .orderedAscending }.map { modeld.appendingPathComponent($0) }
    }

    /// The version the store at `url` was written with: by this runtime's version hashes
    /// when it wrote the store, and by the store's schema (always).
    static func index(ofStoreAt url: URL, in versions: [Version]) throws -> Int? {
        let metadata = (try? PersistentStoreCoordinator.metadataForStore(at: url)) ?? [:]
        let ours = metadata[StoreMetadataKeys.ownVersion] != nil
        var schemaMatch: Int?
        for (i, v) in versions.enumerated() {
            guard try StoreFit.of(storeAt: url, model: v.model.runtimeModel) == .matches else { continue }
            if !ours || v.model.runtimeModel.isCompatible(withStoreMetadata: metadata) { return i }
            if schemaMatch == nil { schemaMatch = i }
        }
        return schemaMatch
    }

    /// Whether a mapping model's recorded model path names `model`'s version. A model
    /// read from a compiled version's URL (`Model.xcdatamodeld/Version 1.mom`, which Linux
    /// reads as `Version 1.xcdatamodel`) is that version.
    static func names(_ recorded: String?, _ model: NSManagedObjectModel) -> Bool {
        guard let recorded, !recorded.isEmpty, var url = model.sourceURL.flatMap(versionURL(of:)) else { return true }
        if url.pathExtension == "mom" { url = url.deletingPathExtension().appendingPathExtension("xcdatamodel") }
        let decoded = recorded.removingPercentEncoding ?? recorded
        return decoded.hasSuffix(url.lastPathComponent) || decoded.hasSuffix(url.lastPathComponent + "/")
    }
}

enum StoreMetadataKeys {
    /// The key this runtime adds to the metadata it writes (its version hashes are its own).
    static let ownVersion = "ctxdebugVersion"
}
