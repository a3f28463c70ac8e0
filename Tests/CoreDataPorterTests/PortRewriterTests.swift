import Testing

@testable import CoreDataPorter
