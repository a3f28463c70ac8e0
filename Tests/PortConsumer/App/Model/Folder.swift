//
//  Folder.swift
//  A notebook app's folder, written as an Xcode-era app writes its entities.
//

import Foundation
import CoreData

@objc(Folder)
public class Folder: NSManagedObject {
    @NSManaged public var name: String
    @NSManaged public var notes: NSSet?

    /// Folders made: Core Data makes each one, inserted or fetched, through its
    /// designated initializer, which the app overrides as Xcode-era apps do.
    nonisolated(unsafe) public static var instancesMade = 0

    public override init(entity: NSEntityDescription, insertInto context: NSManagedObjectContext?) {
        super.init(entity: entity, insertInto: context)
        Folder.instancesMade += 1
    }

    /// The notes' titles, sorted (read through a #keyPath, as the app's table does).
    var sortedTitles: [String] {
        let notes = self.notes?.allObjects as? [Note] ?? []
        return notes.compactMap { $0.value(forKey: #keyPath(Note.title)) as? String }.sorted()
    }
}

// MARK: Generated accessors for notes
extension Folder {

    @objc(addNotesObject:)
    @NSManaged public func addToNotes(_ value: Note)

    @objc(removeNotesObject:)
    @NSManaged public func removeFromNotes(_ value: Note)

    @objc(addNotes:)
    @NSManaged public func addToNotes(_ values: NSSet)

    @objc(removeNotes:)
    @NSManaged public func removeFromNotes(_ values: NSSet)

}
