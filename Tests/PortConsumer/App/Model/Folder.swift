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

    /// The notes' titles, sorted (a #keyPath in a sort descriptor, as the app writes it).
    var sortedTitles: [String] {
        let titles = (notes?.allObjects as? [Note] ?? []).compactMap(\.title)
        _ = NSSortDescriptor(key: #keyPath(Note.title), ascending: true)
        return titles.sorted()
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
