import CoreData
import Foundation

/// Item 11: loading an Xcode model from its XML, as `NSPersistentContainer(name:)` does on
/// Linux (no compiled .momd): `NSManagedObjectModel(contentsOf:)` on a generated
/// `.xcdatamodeld` of 50 entities, and the same plus its compilation into the runtime's
/// model (what the first store open adds).
enum ModelLoadBench {
    static let entityCount = 50

    static func run(loads: Int, repetitions: Int, work: URL) throws -> BenchItem {
        let url = work.appendingPathComponent("Generated.xcdatamodeld")
        let bytes = try writeModel(at: url, entities: entityCount)
        guard let first = NSManagedObjectModel(contentsOf: url), first.entities.count == entityCount else {
            throw BenchError("the generated \(entityCount)-entity model did not load (see stderr)")
        }
        let properties = first.entities.reduce(0) { $0 + $1.properties.count }
        var load: [Double] = [], loadAndCompile: [Double] = []
        for _ in 0..<repetitions {
            load.append(time(loads) { benchSink(NSManagedObjectModel(contentsOf: url)?.entities.count ?? 0) })
            loadAndCompile.append(time(loads) { benchSink(NSManagedObjectModel(contentsOf: url)?.runtimeModel.entities.count ?? 0) })
        }
        let figures = [
            BenchFigure("`NSManagedObjectModel(contentsOf:)`, \(entityCount) entities", unit: "ms/load", samples: load),
            BenchFigure("the same, then compiled into the runtime's model", unit: "ms/load", samples: loadAndCompile),
        ]
        let median = figures[0].median
        return BenchItem(
            id: "12", title: "Loading an Xcode model",
            setup: [
                "A generated Generated.xcdatamodeld (one version, with .xccurrentversion) of \(entityCount) entities and \(properties) properties: every attribute type, defaults, user info, a fetch index and uniqueness constraint per entity, to-one and to-many relationships with inverses; \(bytes / 1024) KiB of XML.",
                "\(loads) loads per sample, \(repetitions) samples; each load reads the files from disk (page cache), parses the XML and builds the description objects. The entities name no class (`NSManagedObject`), so compiling looks no class up.",
            ],
            figures: figures,
            targets: [BenchTarget(what: "a \(entityCount)-entity Xcode model loads from XML", target: "≤ 20 ms", measured: "\(median.benchFormatted) ms", met: median <= 20)],
            detections: nil, skipped: nil, notes: [])
    }

    /// Milliseconds per call of `body`, over `count` calls.
    private static func time(_ count: Int, _ body: () -> Void) -> Double {
        let t0 = benchNow()
        for _ in 0..<count { body() }
        return Double(benchNow() - t0) / Double(count) / 1e6
    }

    /// Writes a `.xcdatamodeld` of `entities` entities; returns the size of its XML.
    static func writeModel(at url: URL, entities: Int) throws -> Int {
        let version = url.appendingPathComponent("Generated.xcdatamodel")
        try FileManager.default.createDirectory(at: version, withIntermediateDirectories: true)
        try Data(
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><dict><key>_XCCurrentVersionName</key><string>Generated.xcdatamodel</string></dict></plist>
            """.utf8
        ).write(to: url.appendingPathComponent(".xccurrentversion"))
        var xml = """
            <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
            <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" lastSavedToolsVersion="22522" systemVersion="23F79" minimumToolsVersion="Automatic" sourceLanguage="Swift" userDefinedModelVersionIdentifier="bench">

            """
        let names = (0..<entities).map { String(format: "Entity%02d", $0) }
        for (i, name) in names.enumerated() {
            let next = names[(i + 1) % entities]
            let previous = names[(i + entities - 1) % entities]
            xml += """
                    <entity name="\(name)" syncable="YES" codeGenerationType="class">
                        <attribute name="title" attributeType="String" defaultValueString="untitled"/>
                        <attribute name="note" optional="YES" attributeType="String"/>
                        <attribute name="small" attributeType="Integer 16" defaultValueString="0" usesScalarValueType="YES"/>
                        <attribute name="medium" attributeType="Integer 32" defaultValueString="1" usesScalarValueType="YES"/>
                        <attribute name="large" attributeType="Integer 64" defaultValueString="2" usesScalarValueType="YES"/>
                        <attribute name="ratio" attributeType="Double" defaultValueString="0.5" usesScalarValueType="YES"/>
                        <attribute name="weight" optional="YES" attributeType="Float" defaultValueString="1.5" usesScalarValueType="NO"/>
                        <attribute name="price" optional="YES" attributeType="Decimal" defaultValueString="9.99"/>
                        <attribute name="flag" attributeType="Boolean" defaultValueString="NO" usesScalarValueType="YES"/>
                        <attribute name="created" optional="YES" attributeType="Date" defaultDateTimeInterval="0" usesScalarValueType="NO"/>
                        <attribute name="blob" optional="YES" attributeType="Binary" allowsExternalBinaryDataStorage="YES"/>
                        <attribute name="identifier" optional="YES" attributeType="UUID" usesScalarValueType="NO"/>
                        <attribute name="link" optional="YES" attributeType="URI"/>
                        <attribute name="tags" optional="YES" attributeType="Transformable" valueTransformerName="NSSecureUnarchiveFromData" customClassName="[String]"/>
                        <relationship name="next" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="\(next)" inverseName="previous" inverseEntity="\(next)"/>
                        <relationship name="previous" optional="YES" toMany="YES" deletionRule="Cascade" destinationEntity="\(previous)" inverseName="next" inverseEntity="\(previous)"/>
                        <fetchIndex name="byTitle">
                            <fetchIndexElement property="title" type="Binary" order="ascending"/>
                        </fetchIndex>
                        <uniquenessConstraints>
                            <uniquenessConstraint>
                                <constraint value="identifier"/>
                            </uniquenessConstraint>
                        </uniquenessConstraints>
                        <userInfo>
                            <entry key="index" value="\(i)"/>
                        </userInfo>
                    </entity>

                """
        }
        xml += "    <elements>\n"
        for (i, name) in names.enumerated() {
            xml += "        <element name=\"\(name)\" positionX=\"\(i * 10)\" positionY=\"0\" width=\"128\" height=\"300\"/>\n"
        }
        xml += "    </elements>\n</model>\n"
        try Data(xml.utf8).write(to: version.appendingPathComponent("contents"))
        return xml.utf8.count
    }
}
