// Our driver for albertodebortoli/Skopelos's example app: its SkopelosClient on its SQLite
// store in Documents, as its ViewController uses it (writeSync, read, removeAll), with a
// writeAsync from the scratch context's queue, and the next launch (a second stack on the
// same file) reading what the first saved through its main and root contexts.
import CoreData
import Foundation

/// The stack calls completions with DispatchQueue.main.async: let the run loop drain them.
func runMainQueue(until done: DispatchSemaphore) {
    while done.wait(timeout: .now()) == .timedOut { RunLoop.main.run(until: Date().addingTimeInterval(0.01)) }
}

/// `write` with its completion waited for; the error it was called with.
func written(_ write: (@escaping (NSError?) -> Void) -> Void) -> NSError? {
    let done = DispatchSemaphore(value: 0)
    nonisolated(unsafe) var result: NSError?
    write { error in
        result = error
        done.signal()
    }
    runMainQueue(until: done)
    return result
}

let dataStore = SkopelosClient.sqliteStack()
let first = written { completion in
    dataStore.writeSync({ context in
        let user = User.SK_create(context)
        user.firstname = "John"
        user.lastname = "Doe"
        let pet = Pet.SK_create(context)
        pet.name = "Rex"
        pet.relationship = user
    }, completion: completion)
}
precondition(first == nil, "\(String(describing: first))")
dataStore.read { context in
    let users = User.SK_all(context)
    precondition(users.count == 1 && users[0].firstname == "John", "\(users)")
    let pets = (users[0].relationship as? Set<Pet>)?.compactMap(\.name)
    precondition(pets == ["Rex"], "the pet's inverse: \(String(describing: pets))")
}

let second = written { completion in
    dataStore.writeAsync({ context in
        let user = User.SK_create(context)
        user.firstname = "Jane"
        user.lastname = "Roe"
    }, completion: completion)
}
precondition(second == nil, "\(String(describing: second))")

// The next launch: a second stack on the same SQLite file reads both users from it.
let relaunched = SkopelosClient.sqliteStack()
relaunched.read { context in
    let names = User.SK_all(context, predicate: NSPredicate(value: true), sortTerm: "firstname", ascending: true).compactMap(\.firstname)
    precondition(names == ["Jane", "John"], "\(names)")
    precondition(User.SK_first("lastname", isEqualTo: "Doe", context: context)?.firstname == "John")
    precondition(Pet.SK_first(context)?.relationship?.lastname == "Doe", "the pet's owner, from the store")
}

// The view controller's removeAll, then what is left in the file.
let removed = written { completion in dataStore.writeSync({ User.SK_removeAll($0) }, completion: completion) }
precondition(removed == nil, "\(String(describing: removed))")
let left = SkopelosClient.sqliteStack()
left.read { context in
    precondition(User.SK_numberOfEntities(context) == 0, "the users were removed")
    let pets = Pet.SK_all(context)
    precondition(pets.count == 1 && pets[0].relationship == nil, "Nullify: the pet stays, without its owner")
}
print("Skopelos: 2 users (one with a pet) written sync and async, read back by a second stack from the store, removed; the pet kept, nullified")
