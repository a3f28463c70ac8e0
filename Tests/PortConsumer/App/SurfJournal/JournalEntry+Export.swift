//
//  JournalEntry+Export.swift
//  The list's sort key and an entry's CSV line, as the app exports them.
//

import Foundation
import CoreData

extension JournalEntry {
  /// The list shows the newest session first.
  static let sortKey = #keyPath(JournalEntry.date)

  @objc dynamic var shortDate: String {
    guard let date = date else { return "" }
    let formatter = DateFormatter()
    formatter.dateStyle = .short
    return formatter.string(from: date)
  }

  /// One line of the export: every field, nil as "", and the line end as a last field.
  func csv() -> String {
    let rating = self.rating.map { String($0.int16Value) } ?? ""
    return [shortDate, height ?? "", period ?? "", wind ?? "", location ?? "", rating, "\n"]
      .joined(separator: ",")
  }
}
