//
//  Note.swift
//  A note: optional and scalar attributes, an NSNumber, a to-one and a Set to-many.
//

import Foundation
import CoreData

@objc(Note)
public class Note: NSManagedObject {
    @NSManaged public var title: String?
    @NSManaged public var created: Date?
    @NSManaged public dynamic var pinned: Bool
    @NSManaged public var rating: Int16  // 0 to 5
    @NSManaged public var words: NSNumber?
    @NSManaged public var folder: Folder?
    @NSManaged public var tags: Set<Tag>

    @objc public var summary: String {
        "\(title ?? "untitled") (\(rating))"
    }

    /// The key the list view groups by (a #keyPath through a relationship).
    static let sectionKey = #keyPath(Note.folder.name)
}
