//
//  JournalEntry.swift
//  A surf session, as Xcode writes an entity class for the chapter's SurfJournalModel
//  (our own fixture in that style: @objc(Name), @NSManaged, an NSNumber rating).
//

import Foundation
import CoreData

@objc(JournalEntry)
class JournalEntry: NSManagedObject {
  @nonobjc public class func fetchRequest() -> NSFetchRequest<JournalEntry> {
    return NSFetchRequest<JournalEntry>(entityName: "JournalEntry")
  }

  @NSManaged var date: Date?
  @NSManaged var height: String?
  @NSManaged var period: String?
  @NSManaged var wind: String?
  @NSManaged var location: String?
  @NSManaged var rating: NSNumber?
}
