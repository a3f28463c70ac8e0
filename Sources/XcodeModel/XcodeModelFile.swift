package import Foundation

/// An Xcode model as it is on disk (no `momc`): a `Name.xcdatamodeld` folder (its current
/// version, named by `.xccurrentversion`), a single `Name.xcdatamodel` folder, or its
/// `contents` file. The one reader of models: CoreData builds its `NSManagedObjectModel`
/// from what this reads, and the port its entity classes (Foundation only, so the port
/// links no runtime).
package enum XcodeModelFile {
    /// The model at `url` (its `contents` file), read and checked element by element.
    package static func read(_ url: URL) throws(XcodeModelError) -> (contents: XcodeModelContents, file: URL) {
        let file = try contentsURL(for: url)
        let data: Data
        do {
            data = try Data(contentsOf: file)
        } catch {
            throw XcodeModelError(.notFound, "The model's contents file cannot be read (\(error.localizedDescription)). Check the path and its permissions.", file: file.path)
        }
        let root = try XMLNode.parse(data, file: file.path)
        return (try XcodeModelContents(root, file: file.path), file)
    }

    /// The model's name: `SurfJournalModel` for `SurfJournalModel.xcdatamodeld`, its
    /// versions and their `contents` files.
    package static func modelName(_ url: URL) -> String {
        var u = url.standardizedFileURL
        if u.lastPathComponent == "contents" { u.deleteLastPathComponent() }
        if u.pathExtension == "xcdatamodel", u.deletingLastPathComponent().pathExtension == "xcdatamodeld" { u.deleteLastPathComponent() }
        return u.deletingPathExtension().lastPathComponent
    }

    /// The `contents` file of the model at `url`.
    package static func contentsURL(for url: URL) throws(XcodeModelError) -> URL {
        let fm = FileManager.default
        var isDirectory: ObjCBool = false
        guard fm.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
            throw XcodeModelError(.notFound, "There is no model here. Point to a .xcdatamodeld or .xcdatamodel folder (as Xcode saves it), or to its contents file.", file: url.path)
        }
        guard isDirectory.boolValue else { return url }
        switch url.pathExtension {
        case "xcdatamodeld":
            return try contentsURL(for: currentVersion(of: url))
        default:
            let contents = url.appendingPathComponent("contents")
            guard fm.fileExists(atPath: contents.path) else {
                throw XcodeModelError(.notFound, "The folder has no `contents` file, so it is not a model Xcode saved (a .xcdatamodel folder holds one). A compiled .momd cannot be read here: use the .xcdatamodeld source.", file: url.path)
            }
            return contents
        }
    }

    /// The current version of a `.xcdatamodeld`: the one `.xccurrentversion` names
    /// (`_XCCurrentVersionName`), or its only version when it has one and no such file.
    package static func currentVersion(of modeld: URL) throws(XcodeModelError) -> URL {
        let versions = ((try? FileManager.default.contentsOfDirectory(atPath: modeld.path)) ?? []).filter { $0.hasSuffix(".xcdatamodel") }.sorted()
        let marker = modeld.appendingPathComponent(".xccurrentversion")
        if let data = try? Data(contentsOf: marker) {
            let plist = try? PropertyListSerialization.propertyList(from: data, format: nil)
            guard let name = (plist as? [String: Any])?["_XCCurrentVersionName"] as? String else {
                throw XcodeModelError(.noCurrentVersion, "The .xccurrentversion file is not a property list with _XCCurrentVersionName. Choose the current version again in Xcode (Model Version in the File inspector).", file: marker.path)
            }
            guard versions.contains(name) else {
                throw XcodeModelError(
                    .noCurrentVersion, "The .xccurrentversion file names \(name), which the model does not have (it has \(versions.isEmpty ? "no versions" : versions.joined(separator: ", "))).",
                    file: marker.path)
            }
            return modeld.appendingPathComponent(name)
        }
        switch versions.count {
        case 0:
            throw XcodeModelError(.notFound, "The .xcdatamodeld folder holds no .xcdatamodel version.", file: modeld.path)
        case 1:
            return modeld.appendingPathComponent(versions[0])
        default:
            throw XcodeModelError(
                .noCurrentVersion, "The model has several versions (\(versions.joined(separator: ", "))) and no .xccurrentversion file naming the current one. Choose it in Xcode (Model Version in the File inspector).",
                file: modeld.path)
        }
    }
}
