// The fixed twin of ../bug/PersistentRepository.swift.txt (backtrace-labs/backtrace-cocoa
// #151): the insert and the save run inside the private context's performAndWait.
import CoreData
import Foundation

final class StoredReport: NSManagedObject {
    @NSManaged var identifier: String
    @NSManaged var reportData: Data
    @NSManaged var dateAdded: Date
}

final class PersistentRepository {
    let backgroundContext: NSManagedObjectContext

    init(container: NSPersistentContainer) {
        backgroundContext = container.newBackgroundContext()
    }

    func save(identifier: UUID, reportData: Data) throws {
        let context = backgroundContext
        try context.performAndWait {
            let report = StoredReport(context: context)
            report.identifier = identifier.uuidString
            report.reportData = reportData
            report.dateAdded = Date()
            try context.save()
        }
    }
}

public final class ReportDatabase {
    private let repository: PersistentRepository

    public init(container: NSPersistentContainer) {
        repository = PersistentRepository(container: container)
    }

    /// Called by the crash reporter on whatever thread reports the crash.
    public func add(reportData: Data) throws -> UUID {
        let identifier = UUID()
        try repository.save(identifier: identifier, reportData: reportData)
        return identifier
    }
}
