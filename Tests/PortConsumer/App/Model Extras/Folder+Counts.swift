//
//  Folder+Counts.swift
//  In a folder whose name has a space, as real repositories have ("Sample Model",
//  "Core Data Manager"): the CoreDataPort plugin must find and port it.
//

import Foundation
import CoreData

extension Folder {
    @objc public var noteCount: Int {
        notes?.count ?? 0
    }
}
