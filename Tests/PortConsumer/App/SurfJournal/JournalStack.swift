//
//  JournalStack.swift
//  The app's Core Data stack: one container, its main-queue context, a save helper.
//

import Foundation
import CoreData

class JournalStack {
  let model: NSManagedObjectModel
  let storeURL: URL

  lazy var mainContext: NSManagedObjectContext = {
    return self.storeContainer.viewContext
  }()

  lazy var storeContainer: NSPersistentContainer = {
    let container = NSPersistentContainer(name: "SurfJournalModel", managedObjectModel: model)
    container.persistentStoreDescriptions = [NSPersistentStoreDescription(url: storeURL)]
    container.loadPersistentStores { _, error in
      if let error = error as NSError? {
        fatalError("Unresolved error \(error), \(error.userInfo)")
      }
    }
    return container
  }()

  init(model: NSManagedObjectModel, storeURL: URL) {
    self.model = model
    self.storeURL = storeURL
  }

  func saveContext() {
    guard mainContext.hasChanges else { return }
    do {
      try mainContext.save()
    } catch let error as NSError {
      fatalError("Unresolved error \(error), \(error.userInfo)")
    }
  }
}
