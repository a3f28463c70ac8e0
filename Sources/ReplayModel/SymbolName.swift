/// Function names of sampled stacks, shortened for the verdicts and the reports.
public enum SymbolName {
    /// The name without the demangler's "merged ", "static " and specialization prefixes.
    public static func stripped(_ name: String) -> String {
        var n = name
        for prefix in ["merged ", "static ", "generic specialization ", "function signature specialization "] {
            if n.hasPrefix(prefix) {
                n.removeFirst(prefix.count)
                if let of = n.range(of: "> of ") { n = String(n[of.upperBound...]) }
            }
        }
        if n.hasPrefix("static ") { n.removeFirst(7) }
        return n
    }

    /// "SurfJournal.CSVExport.writeRows(...)" -> "CSVExport.writeRows".
    public static func shortName(_ function: String) -> String {
        var n = stripped(function)
        if let paren = n.firstIndex(of: "(") { n = String(n[..<paren]) }
        let parts = n.split(separator: ".")
        return parts.count > 2 ? parts.suffix(2).joined(separator: ".") : n
    }
}
