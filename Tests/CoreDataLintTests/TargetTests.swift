@testable import CoreDataLint
import Foundation
import Testing

/// Names resolved per target, as the compiler resolves them: a target's files see their
/// own declarations first, and a name two other targets declare is unknown.
@Suite("Targets of a project")
struct TargetTests {
    static let twoTargets = FixtureTests.fixtures.appendingPathComponent("TwoTargets")

    @Test("A manifest's targets: each at its path, or where SwiftPM looks for it by default")
    func manifestTargets() {
        let manifest = """
            let package = Package(name: "P", targets: [
                .target(name: "Core"),
                .executableTarget(name: "Tool", dependencies: ["Core"], path: "Tools/tool/"),
                .testTarget(name: "CoreTests", dependencies: ["Core"]),
                .binaryTarget(name: "Blob", path: "Blob.xcframework"),
            ])
            """
        let targets = ProjectTargets.manifestTargets(manifest)
        #expect(targets.filter { $0.name == "Core" }.map(\.path) == ["Sources/Core", "Source/Core", "src/Core", "srcs/Core"])
        #expect(targets.filter { $0.name == "Tool" }.map(\.path) == ["Tools/tool"])
        #expect(targets.filter { $0.name == "CoreTests" }.map(\.path) == ["Tests/CoreTests"])
        #expect(!targets.contains { $0.name == "Blob" })
        let files = ["/p/Sources/Core/A.swift", "/p/Sources/Core/Sub/B.swift", "/p/Tools/tool/main.swift", "/p/Tests/CoreTests/T.swift",
                     "/p/Package.swift", "/p/Example/App/View.swift"]
        #expect(ProjectTargets.names(of: files, root: "/p", manifest: manifest) == ["Core", "Core", "Tool", "CoreTests", "", ""])
    }

    @Test("An Xcode project's targets are the folders beside it named as its targets; files under no project are one target")
    func xcodeLayout() {
        let project = """
            /* Begin PBXNativeTarget section */
            		8A1 /* Journal */ = {
            			isa = PBXNativeTarget;
            			buildPhases = (
            			);
            			name = Journal;
            			productName = Journal;
            		};
            		8A2 /* ShareExtension */ = {
            			isa = PBXNativeTarget;
            			name = "ShareExtension";
            		};
            """
        let targets = ProjectTargets.nativeTargets(inProject: project)
        #expect(targets == ["Journal", "ShareExtension"])
        let files = ["/app/Journal/AppDelegate.swift", "/app/Journal/Views/List.swift", "/app/ShareExtension/Share.swift", "/app/Loose.swift",
                     "/app/Helpers/Format.swift"]
        #expect(
            ProjectTargets.names(of: files, root: "/app", manifest: "", xcodeTargets: targets)
                == ["folder:Journal", "folder:Journal", "folder:ShareExtension", "", ""])
        #expect(Set(ProjectTargets.names(of: files, root: nil)) == [""])
    }

    func marks(_ result: LintResult, under folder: URL) -> Set<String> {
        Set(result.findings.filter { $0.path.hasPrefix(folder.path + "/") }.map { "\($0.path):\($0.line) \($0.ruleID)" })
    }

    @Test("A whole repository finds in each target what the target's folder finds alone", arguments: ["Sources/JournalCore", "Extensions/Share"])
    func wholeRepositoryFindsWhatFoldersFind(folder: String) throws {
        let whole = Linter().lint(files: try SourceCollector.swiftFiles(under: [Self.twoTargets.path]))
        let target = Self.twoTargets.appendingPathComponent(folder)
        let alone = Linter().lint(files: try SourceCollector.swiftFiles(under: [target.path]))
        #expect(marks(whole, under: target) == marks(alone, under: target))
        let expected = try SourceCollector.swiftFiles(under: [target.path]).flatMap(FixtureTests.expectedMarks).map { "\($0.file):\($0.line) \($0.rule)" }
        #expect(marks(whole, under: target) == Set(expected))
    }

    @Test("An Xcode project's target folders are targets too: the app's bugs are found beside its extension")
    func xcodeTargetFolders() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("lint-xcode-targets-\(getpid())")
        try? FileManager.default.removeItem(at: root)
        defer { try? FileManager.default.removeItem(at: root) }
        let manager = FileManager.default
        for folder in ["Journal.xcodeproj", "Journal", "ShareExtension"] {
            try manager.createDirectory(at: root.appendingPathComponent(folder), withIntermediateDirectories: true)
        }
        let project = "\t\tA1 = {\n\t\t\tisa = PBXNativeTarget;\n\t\t\tname = Journal;\n\t\t};\n\t\tA2 = {\n\t\t\tisa = PBXNativeTarget;\n\t\t\tname = ShareExtension;\n\t\t};\n"
        try project.write(to: root.appendingPathComponent("Journal.xcodeproj/project.pbxproj"), atomically: true, encoding: .utf8)
        let app = Self.twoTargets.appendingPathComponent("Sources/JournalCore/EntryStore.swift")
        let share = Self.twoTargets.appendingPathComponent("Extensions/Share/ShareViewController.swift")
        try manager.copyItem(at: app, to: root.appendingPathComponent("Journal/EntryStore.swift"))
        try manager.copyItem(at: share, to: root.appendingPathComponent("ShareExtension/ShareViewController.swift"))
        let (files, projectFiles) = try SourceCollector.inputs(under: [root.path])
        let found = Linter().lint(files: files, projectFiles: projectFiles).findings.map { "\(($0.path as NSString).lastPathComponent):\($0.line) \($0.ruleID)" }
        let expected = try FixtureTests.expectedMarks(in: app.path).map { "EntryStore.swift:\($0.line) \($0.rule)" }
        #expect(found.sorted() == expected.sorted())
    }

    @Test("A name two other targets declare is unknown in a third, even when they agree; each target's own is known")
    func ambiguousNameIsUnknown() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("lint-targets-\(getpid())")
        try? FileManager.default.removeItem(at: root)
        defer { try? FileManager.default.removeItem(at: root) }
        let stack = { (type: String) in
            """
            import CoreData
            final class \(type) {
                let container = NSPersistentContainer(name: "M")
                lazy var context: NSManagedObjectContext = container.newBackgroundContext()
                func work() { context.perform { try? self.context.save() } }
            }
            """
        }
        let sources = [
            "Package.swift": #"let package = Package(name: "P", targets: [.target(name: "A"), .target(name: "B"), .target(name: "C")])"#,
            "Sources/A/AStack.swift": stack("AStack") + """

                final class AScreen: UIViewController {
                    let holder = AStack()
                    override func viewDidLoad() { try? holder.context.save() }
                }
                """,
            "Sources/B/BStack.swift": stack("BStack"),
            "Sources/C/CScreen.swift": """
                import CoreData
                import UIKit
                final class CScreen: UIViewController {
                    var holder: AnyObject!
                    override func viewDidLoad() { try? holder.context.save() }
                }
                """,
        ]
        for (path, text) in sources {
            let url = root.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try text.write(to: url, atomically: true, encoding: .utf8)
        }
        let result = Linter().lint(files: try SourceCollector.swiftFiles(under: [root.path]))
        let found = result.findings.map { "\(($0.path as NSString).lastPathComponent):\($0.line) \($0.ruleID)" }
        #expect(found == ["AStack.swift:9 context-without-perform"], "\(result.findings.map(\.message))")
        // Linting the targets' folder, below the manifest, resolves them as targets too.
        let below = Linter().lint(files: try SourceCollector.swiftFiles(under: [root.appendingPathComponent("Sources").path]))
        #expect(below.findings.map { "\(($0.path as NSString).lastPathComponent):\($0.line) \($0.ruleID)" } == found)
    }
}
