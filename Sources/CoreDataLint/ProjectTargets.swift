import Foundation
import SwiftParser
import SwiftSyntax

/// The targets (modules) of one project, as the compiler sees them: each target's files
/// see their own declarations first, so two targets may each declare an `EntryImporter`
/// or a `var context` of their own (an app and its share extension). The index is then
/// built per target (`TargetViews`).
///
/// A project's targets come from what it holds at its folder (`ProjectGroups`' root):
/// - a `Package.swift`: its targets, each at its `path:` or at `Sources/NAME` (a test
///   target at `Tests/NAME`; `Source/`, `src/` and `srcs/` too, as SwiftPM looks);
/// - an Xcode project, for the files no manifest target holds: the folder beside the
///   project named as one of its targets (Xcode makes a folder per target, `Journal/`,
///   `JournalTests/`, `ShareExtension/`, for the targets of those names in
///   `project.pbxproj`), whatever folders it holds itself;
/// - every other file of the project is one target more, the project's own.
/// Files under no project are one target, as a folder linted on its own is.
enum ProjectTargets {
    /// For each file, in order, the name of its target: "" for a project's own.
    /// `manifest` and `xcodeTargets` stand for what the project's folder holds (tests).
    static func names(of files: [String], root: String?, manifest: String? = nil, xcodeTargets: Set<String>? = nil) -> [String] {
        guard let root else { return files.map { _ in "" } }
        let text = manifest ?? (try? String(contentsOfFile: root + "/Package.swift", encoding: .utf8))
        let targets = text.map(manifestTargets) ?? []
        let folders = xcodeTargets ?? xcodeTargetNames(in: root)
        return files.map { file in
            let path = URL(fileURLWithPath: file).standardizedFileURL.path
            guard path.hasPrefix(root + "/") else { return "" }
            let relative = String(path.dropFirst(root.count + 1))
            if let target = targets.filter({ relative.hasPrefix($0.path + "/") }).max(by: { $0.path.count < $1.path.count }) {
                return target.name
            }
            let parts = relative.split(separator: "/")
            return parts.count > 1 && folders.contains(String(parts[0])) ? "folder:" + parts[0] : ""
        }
    }

    /// The names of the native targets of the Xcode projects in `folder`.
    static func xcodeTargetNames(in folder: String) -> Set<String> {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        var targets: Set<String> = []
        for name in names where name.hasSuffix(".xcodeproj") {
            guard let text = try? String(contentsOfFile: "\(folder)/\(name)/project.pbxproj", encoding: .utf8) else { continue }
            targets.formUnion(nativeTargets(inProject: text))
        }
        return targets
    }

    /// `isa = PBXNativeTarget; … name = ShareExtension;` in a `project.pbxproj`.
    static func nativeTargets(inProject text: String) -> Set<String> {
        var targets: Set<String> = []
        for block in text.components(separatedBy: "isa = PBXNativeTarget;").dropFirst() {
            let body = block.components(separatedBy: "};").first ?? ""
            guard let range = body.range(of: "\tname = ") ?? body.range(of: " name = ") else { continue }
            let value = body[range.upperBound...].prefix { $0 != ";" }
            targets.insert(value.trimmingCharacters(in: CharacterSet(charactersIn: "\" ")))
        }
        return targets
    }

    /// The nearest folder at or above the files' common folder that holds a project:
    /// `ctxdebug lint Sources` in a package lints its targets' folders, each a target
    /// still, though the project is above what was linted. Nil when none does.
    static func enclosingProject(of files: [String], isProjectFolder: (String) -> Bool = ProjectGroups.holdsProject) -> String? {
        guard !files.isEmpty else { return nil }
        let folders = files.map { (URL(fileURLWithPath: $0).standardizedFileURL.path as NSString).deletingLastPathComponent }
        var folder = ProjectGroups.commonFolder(folders)
        while true {
            if isProjectFolder(folder) { return folder }
            guard folder != "/", !folder.isEmpty else { return nil }
            folder = (folder as NSString).deletingLastPathComponent
        }
    }

    /// A manifest target's name and a folder of it, relative to the package.
    struct ManifestTarget: Equatable {
        var name: String
        var path: String
    }

    static let sourceKinds: Set<String> = ["target", "executableTarget", "testTarget", "macro", "plugin"]

    /// `.target(name: "Core", path: "Sources/Core")` and its kin, read from the
    /// manifest's syntax (no code of it runs).
    static func manifestTargets(_ text: String) -> [ManifestTarget] {
        let tree = Parser.parse(source: text)
        var targets: [ManifestTarget] = []
        for token in tree.tokens(viewMode: .sourceAccurate) where sourceKinds.contains(token.text) {
            guard let member = token.parent?.parent?.as(MemberAccessExprSyntax.self), member.declName.baseName.id == token.id,
                let call = member.parent?.as(FunctionCallExprSyntax.self), let name = stringArgument("name", of: call)
            else { continue }
            let paths = stringArgument("path", of: call).map { [$0] } ?? defaultPaths(name, isTest: token.text == "testTarget")
            targets += paths.map { ManifestTarget(name: name, path: trimmed($0)) }
        }
        return targets
    }

    /// Where SwiftPM looks for a target that names no path: one entry per folder, the
    /// file's own tells which.
    private static func defaultPaths(_ name: String, isTest: Bool) -> [String] {
        (isTest ? ["Tests"] : ["Sources", "Source", "src", "srcs"]).map { "\($0)/\(name)" }
    }

    private static func trimmed(_ path: String) -> String {
        var path = path
        while path.hasPrefix("./") { path.removeFirst(2) }
        while path.hasSuffix("/") { path.removeLast() }
        return path
    }

    private static func stringArgument(_ label: String, of call: FunctionCallExprSyntax) -> String? {
        guard let literal = call.arguments.first(where: { $0.label?.text == label })?.expression.as(StringLiteralExprSyntax.self),
            literal.segments.count == 1, let segment = literal.segments.first?.as(StringSegmentSyntax.self)
        else { return nil }
        return segment.content.text
    }
}
