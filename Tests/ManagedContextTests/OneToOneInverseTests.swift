import Foundation
import Testing
@testable import ManagedContext

final class Campsite: ManagedObject {
    @Attribute("number") var number: Int64? = 0
    @Relationship("camper", inverse: "campsite") var camper: Camper?
}

final class Camper: ManagedObject {
    @Attribute("name") var name: String?
    @Relationship("campsite", inverse: "camper") var campsite: Campsite?
}

/// A one-to-one relationship reassigned: Core Data keeps the object graph consistent,
/// so the destination's old partner lets go. "If you change the relationship … Core
/// Data automatically updates the inverse … and nullifies the old one" (Core Data
/// Programming Guide, "Relationships and Fetched Properties": "Manipulating
/// Relationships and Object Graph Integrity": setting `anEmployee.department = newDepartment`
/// is the same as removing it from the old department's employees). Core Data by
/// Tutorials' CampgroundManager tests rely on it: a camper moved to a new campsite is
/// no longer the old campsite's camper.
@Suite struct OneToOneInverseTests {
    @Test("setting new.camper = johnny nils the old campsite's camper, in memory and in the store")
    func reassigningFromTheOtherSideNilsTheOldPartner() throws {
        let stack = try TestStack(model: ManagedObjectModel(entities: [Campsite.self, Camper.self]))
        let context = stack.privateContext("camp")
        try context.performAndWait {
            let johnny = Camper(context: context)
            johnny.name = "Johnny"
            let old = Campsite(context: context)
            old.number = 1
            old.camper = johnny
            try context.save()
            #expect(johnny.campsite === old)

            let new = Campsite(context: context)
            new.number = 2
            new.camper = johnny
            #expect(johnny.campsite === new)
            #expect(old.camper == nil, "the old campsite let go of its camper")
            #expect(old.isUpdated, "the old campsite changed, so the save writes it")
            try context.save()
        }
        let reader = stack.privateContext("reader")
        try reader.performAndWait {
            let sites = try reader.fetch(FetchRequest<Campsite>()).sorted { ($0.number ?? 0) < ($1.number ?? 0) }
            #expect(sites.map { $0.camper?.name } == [nil, "Johnny"])
        }
    }

    @Test("setting johnny.campsite = new nils the old campsite's camper")
    func reassigningFromThisSideNilsTheOldPartner() throws {
        let stack = try TestStack(model: ManagedObjectModel(entities: [Campsite.self, Camper.self]))
        let context = stack.privateContext("camp")
        context.performAndWait {
            let johnny = Camper(context: context)
            let old = Campsite(context: context)
            johnny.campsite = old
            let new = Campsite(context: context)
            johnny.campsite = new
            #expect(old.camper == nil)
            #expect(new.camper === johnny)
        }
    }

    @Test("giving a camper's campsite to another camper nils the first camper's campsite")
    func takingAPartnerNilsItsPreviousPartnersSide() throws {
        let stack = try TestStack(model: ManagedObjectModel(entities: [Campsite.self, Camper.self]))
        let context = stack.privateContext("camp")
        context.performAndWait {
            let johnny = Camper(context: context)
            let site = Campsite(context: context)
            site.camper = johnny
            let jane = Camper(context: context)
            jane.campsite = site
            #expect(johnny.campsite == nil)
            #expect(site.camper === jane)
        }
    }
}
