// Our driver for Core Data by Tutorials' EmployeeDirectory (ch. 8, measuring and boosting
// performance): the queries of its department and employee view controllers, without
// UIKit, through its own CoreDataStack and entity classes: predicates with argument arrays,
// count(for:), the "fast" head count grouped by department, sales per employee, the
// picture split into its own entity, and a batch delete.
import CoreData
import Foundation

let stack = CoreDataStack(modelName: "EmployeeDirectory")
let context = stack.mainContext
let people: [(String, String, Bool, Int16, Int)] = [
    ("Ada", "Engineering", true, 0, 3), ("Grace", "Engineering", true, 12, 1), ("Alan", "Engineering", false, 5, 0),
    ("Ken", "Sales", true, 20, 7), ("Barbara", "Sales", false, 0, 2),
]
for (name, department, active, vacation, sales) in people {
    let employee = Employee(context: context)
    employee.name = name
    employee.department = department
    employee.active = NSNumber(value: active)
    employee.vacationDays = NSNumber(value: vacation)
    let picture = EmployeePicture(context: context)
    picture.picture = Data(repeating: 7, count: 1024)
    employee.picture = picture
    employee.pictureThumbnail = Data(repeating: 7, count: 16)
    for day in 0..<sales {
        let sale = Sale(context: context)
        sale.amount = NSNumber(value: 100 + day)
        sale.date = Date(timeIntervalSince1970: Double(1_700_000_000 + day * 86_400))
        employee.addToSales(sale)
    }
}
stack.saveContext()

func employees(_ format: String, _ arguments: [Any]) throws -> Int {
    let request: NSFetchRequest<Employee> = Employee.fetchRequest()
    request.predicate = NSPredicate(format: format, argumentArray: arguments)
    return try context.fetch(request).count
}
let check7 = try { try employees("%K = %@", ["department", "Engineering"]) == 3 }()
precondition(check7)
let check8 = try { try employees("%K = %@ AND %K = %@", ["department", "Engineering", "active", NSNumber(value: true)]) == 2 }()
precondition(check8)
let check9 = try { try employees("%K = %@ AND %K > %@", ["department", "Sales", "vacationDays", NSNumber(value: 10)]) == 1 }()
precondition(check9)
let check10 = try { try employees("%K = %@ AND %K = 0", ["department", "Sales", "vacationDays"]) == 1 }()
precondition(check10)

let headCount = NSExpressionDescription()
headCount.name = "headCount"
headCount.expression = NSExpression(forFunction: "count:", arguments: [NSExpression(forKeyPath: "department")])
let perDepartment: NSFetchRequest<NSDictionary> = NSFetchRequest(entityName: "Employee")
perDepartment.propertiesToFetch = ["department", headCount]
perDepartment.propertiesToGroupBy = ["department"]
perDepartment.resultType = .dictionaryResultType
let counts = try context.fetch(perDepartment)
let byDepartment = Dictionary(uniqueKeysWithValues: counts.map { ($0["department"] as! String, ($0["headCount"] as! NSNumber).intValue) })
precondition(byDepartment == ["Engineering": 3, "Sales": 2], "\(byDepartment)")

let list: NSFetchRequest<Employee> = Employee.fetchRequest()
list.fetchBatchSize = 10
list.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
let ken = try context.fetch(list).first { $0.name == "Ken" }!
let sales: NSFetchRequest<Sale> = Sale.fetchRequest()
sales.predicate = NSPredicate(format: "%K == %@", "employee", ken)
let check11 = try { try ken.managedObjectContext?.count(for: sales) == 7 }()
precondition(check11)
precondition(ken.picture?.picture?.count == 1024 && ken.sales?.count == 7)

let deleteRequest = NSBatchDeleteRequest(fetchRequest: NSFetchRequest<any NSFetchRequestResult>(entityName: "Sale"))
deleteRequest.resultType = .resultTypeCount
let deleted = try context.execute(deleteRequest) as? NSBatchDeleteResult
precondition((deleted?.result as? NSNumber)?.intValue == 13, "13 sales deleted")
print("EmployeeDirectory: 5 employees in 2 departments; 13 sales counted and batch-deleted")
