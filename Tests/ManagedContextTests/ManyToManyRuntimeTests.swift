import Foundation
import GRDB
import Testing
@testable import ManagedContext

final class Student: ManagedObject {
    @Attribute("name") var name: String?
    @Relationship("courses", inverse: "students") var courses: Set<Course>
}

final class Course: ManagedObject {
    @Attribute("title") var title: String?
    @Relationship("students", inverse: "courses") var students: Set<Student>
}

/// Many-to-many relationships declared with `@Relationship` sets on both sides: stored
/// in Core Data's join table (`Z_1STUDENTS (Z_1COURSES, Z_2STUDENTS)` for Course 1 and
/// Student 2), both sides in step. Core Data: "You define a many-to-many relationship
/// using two to-many relationships" (Core Data Programming Guide, "Creating Managed
/// Object Relationships").
@Suite struct ManyToManyRuntimeTests {
    @Test func setsOnBothSidesStayInStepAndSave() throws {
        let stack = try TestStack(model: ManagedObjectModel(entities: [Student.self, Course.self]))
        let c = stack.privateContext("m2m")
        try c.performAndWait {
            let ann = Student(context: c)
            ann.name = "Ann"
            let bob = Student(context: c)
            bob.name = "Bob"
            let math = Course(context: c)
            math.title = "Math"
            let art = Course(context: c)
            art.title = "Art"
            ann.courses = [math, art]
            math.students.insert(bob)
            #expect(Set(math.students.compactMap(\.name)) == ["Ann", "Bob"])
            #expect(Set(art.students.compactMap(\.name)) == ["Ann"])
            try c.save()
            ann.courses = [art]
            #expect(Set(math.students.compactMap(\.name)) == ["Bob"])
            try c.save()
        }
        let rows = try stack.rawRead { db in
            try Row.fetchAll(db, sql: "SELECT Z_1COURSES, Z_2STUDENTS FROM Z_1STUDENTS ORDER BY 1, 2").map { "\($0[0] as Int64)-\($0[1] as Int64)" }
        }
        // Math is Course 1 and Art Course 2; Ann is Student 1 and Bob Student 2.
        #expect(rows == ["1-2", "2-1"])
        let other = stack.privateContext("reader")
        try other.performAndWait {
            let courses = try other.fetch(FetchRequest<Course>(sortDescriptors: [FetchSortDescriptor(\Course.title, ascending: true)]))
            #expect(courses.map { Set($0.students.compactMap(\.name)) } == [["Ann"], ["Bob"]])
        }
    }
}
