public import CoreData

/// The entity's helpers, as the chapter's app has them: the date as the list shows it,
/// and the entry as a line of the app's CSV export.
extension JournalEntry {
    /// The date in the short date style of the user's locale ("8/29/14" in en_US),
    /// or "" for none. A formatter per call, as the app makes one: part of what the
    /// app's export costs.
    public func stringForDate() -> String {
        guard let date else { return "" }
        let formatter = DateFormatter()
        formatter.dateStyle = .short
        return formatter.string(from: date)
    }

    /// The entry as the app's export writes it: date, height, period, wind, location and
    /// rating, nil as "", joined by commas with the line end as one more field, so every
    /// line ends in ",\n". Nothing is quoted: a location with a comma adds a column
    /// (`CSVExport`, the fast export, writes RFC 4180).
    public func csv() -> String {
        let fields = [
            stringForDate(), height ?? "", period ?? "", wind ?? "", location ?? "",
            rating.map { String($0.int16Value) } ?? "", "\n",
        ]
        return fields.joined(separator: ",")
    }
}
