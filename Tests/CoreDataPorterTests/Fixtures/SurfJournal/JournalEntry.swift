//
//  JournalEntry.swift
//  A surf journal entry as an Xcode 6-era app declares it (our own words), for the
//  chapter's model in ../shared/real-apps/surfjournal/SurfJournalModel.xcdatamodeld.
//

import Foundation
import CoreData

@objc(JournalEntry)
class JournalEntry: NSManagedObject {
    @NSManaged var date: Date?
    @NSManaged var height: String?
    @NSManaged var period: String?
    @NSManaged var wind: String?
    @NSManaged var location: String?
    @NSManaged var rating: NSNumber?

    static let newestFirst = [NSSortDescriptor(key: #keyPath(JournalEntry.date), ascending: false)]
}
