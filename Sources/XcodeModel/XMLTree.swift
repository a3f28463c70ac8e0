package import Foundation

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// One element of an XML file, with the line it starts on: the tree the model's value
/// types are read from. Only what a model file holds is kept (names, attributes,
/// children); text content is ignored, as the `contents` file has none that matters.
package struct XMLNode: Sendable {
    package var name: String
    package var attributes: [String: String]
    package var children: [XMLNode] = []
    /// 1-based line of the element's start tag.
    package var line: Int

    /// The children named `name`.
    package func children(named name: String) -> [XMLNode] { children.filter { $0.name == name } }
    /// The first child named `name`.
    package func child(named name: String) -> XMLNode? { children.first { $0.name == name } }
    package subscript(attribute: String) -> String? { attributes[attribute] }

    /// An XML boolean as Xcode writes it (`YES`/`NO`); `true`/`false`/`1`/`0` too.
    package func flag(_ attribute: String, default value: Bool = false) -> Bool {
        guard let raw = attributes[attribute] else { return value }
        switch raw.lowercased() {
        case "yes", "true", "1": return true
        case "no", "false", "0": return false
        default: return value
        }
    }

    /// Parses `data` into its root element. When the XML is malformed, throws with the
    /// file, the line the parser stopped at, and the parser's own reason.
    package static func parse(_ data: Data, file: String) throws(XcodeModelError) -> XMLNode {
        let parser = XMLParser(data: data)
        let builder = TreeBuilder()
        parser.delegate = builder
        parser.shouldProcessNamespaces = false
        parser.shouldResolveExternalEntities = false
        let ok = parser.parse()
        guard ok, let root = builder.root else {
            let line = builder.errorLine ?? parser.lineNumber
            let reason = builder.errorReason ?? parser.parserError.map { "\($0.localizedDescription)" } ?? "the document has no root element"
            throw XcodeModelError(.malformedXML, "The model file is not well-formed XML: \(reason). Open it in Xcode or fix it by hand; a model is read from its `contents` file.", file: file, line: max(line, 1))
        }
        return root
    }
}

/// Builds the element tree from XMLParser's events.
///
/// Not Sendable: it lives only for one `parse` on the calling thread.
private final class TreeBuilder: NSObject, XMLParserDelegate {
    var stack: [XMLNode] = []
    var root: XMLNode?
    var errorLine: Int?
    var errorReason: String?

    func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName qName: String?, attributes attributeDict: [String: String] = [:]) {
        stack.append(XMLNode(name: elementName, attributes: attributeDict, line: parser.lineNumber))
    }

    func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName qName: String?) {
        guard let node = stack.popLast() else { return }
        if stack.isEmpty { root = node } else { stack[stack.count - 1].children.append(node) }
    }

    func parser(_ parser: XMLParser, parseErrorOccurred parseError: any Error) {
        if errorLine == nil {
            errorLine = parser.lineNumber
            let ns = parseError as NSError
            let detail = (ns.userInfo[NSLocalizedDescriptionKey] as? String) ?? ns.localizedDescription
            errorReason = "\(detail) (XMLParser error \(ns.code))"
        }
    }
}
