import CoreData
import Foundation

// Swift concurrency places code as a queue does: a nonisolated async function, a
// task group's child task, Task.detached and an actor's methods run on neither the
// main queue nor any context's; @MainActor code and MainActor.run on the main queue;
// `await context.perform { }` is the only way onto a context's queue.
final class ArticleSync {
    let stack = ArticleStack.shared

    // main-context-off-main-queue, the bug: a nonisolated async function runs on
    // Swift's global executor, not on the main queue the view context belongs to.
    func markAllRead() async throws {
        let context = stack.container.viewContext
        let request = NSFetchRequest<Article>(entityName: "Article")
        let articles = try context.fetch(request) // expect: main-context-off-main-queue
        for article in articles { article.isRead = true }
        try context.save() // expect: main-context-off-main-queue
    }

    // The correct twin: the same work inside the view context's perform.
    func markAllReadFixed() async throws {
        let context = stack.container.viewContext
        try await context.perform {
            let articles = try context.fetch(NSFetchRequest<Article>(entityName: "Article"))
            for article in articles { article.isRead = true }
            try context.save()
        }
    }

    // The correct twin: @MainActor puts the function on the main queue.
    @MainActor
    func markAllReadOnMain() async throws {
        let context = stack.container.viewContext
        let articles = try context.fetch(NSFetchRequest<Article>(entityName: "Article"))
        for article in articles { article.isRead = true }
        try context.save()
    }

    // context-without-perform, the bug: the stack's private context used straight in
    // an async function, whose caller can never be inside its perform.
    func importTitles(_ titles: [String]) async throws {
        let context = stack.importContext
        for title in titles {
            let article = Article(context: context) // expect: context-without-perform
            article.title = title // expect: context-without-perform
        }
        try context.save() // expect: context-without-perform
    }

    // The correct twin.
    func importTitlesFixed(_ titles: [String]) async throws {
        let context = stack.importContext
        try await context.perform {
            for title in titles {
                let article = Article(context: context)
                article.title = title
            }
            try context.save()
        }
    }

    // object-across-queues, the bug: each child task of the group reads a managed
    // object of the view context off the main queue.
    @MainActor
    func titleLengths() async throws -> [Int] {
        let articles = try stack.container.viewContext.fetch(NSFetchRequest<Article>(entityName: "Article"))
        return await withTaskGroup(of: Int.self) { group in
            for article in articles {
                group.addTask {
                    article.title?.count ?? 0 // expect: object-across-queues
                }
            }
            return await group.reduce(0) { $0 + $1 }.words
        }
    }

    // The correct twin: plain values cross into the child tasks.
    @MainActor
    func titleLengthsFixed() async throws -> [Int] {
        let articles = try stack.container.viewContext.fetch(NSFetchRequest<Article>(entityName: "Article"))
        let titles = articles.map { $0.title ?? "" }
        return await withTaskGroup(of: Int.self) { group in
            for title in titles {
                group.addTask { title.count }
            }
            return await group.reduce(0) { $0 + $1 }.words
        }
    }

    // main-context-off-main-queue, the bug: a Task made in a nonisolated async
    // function is nonisolated too.
    func refreshLater() async {
        Task {
            try? self.stack.container.viewContext.save() // expect: main-context-off-main-queue
        }
    }

    // The correct twins: a Task marked @MainActor, and MainActor.run.
    func refreshLaterFixed() async {
        Task { @MainActor in
            try? self.stack.container.viewContext.save()
        }
        await MainActor.run {
            try? self.stack.container.viewContext.save()
        }
    }

    // A closure handed to an unknown API inside an async function: it may run
    // anywhere, and stays silent.
    func refreshWith(_ scheduler: Scheduler) async {
        scheduler.schedule {
            try? self.stack.container.viewContext.save()
        }
    }
}

extension Int {
    var words: [Int] { [self] }
}

protocol Scheduler {
    func schedule(_ work: @escaping () -> Void)
}

// main-context-off-main-queue, the bug: an actor's methods run on its executor.
actor ArticleCounter {
    let container: NSPersistentContainer

    init(container: NSPersistentContainer) {
        self.container = container
    }

    func unreadCount() throws -> Int {
        let request = NSFetchRequest<Article>(entityName: "Article")
        request.predicate = NSPredicate(format: "isRead == NO")
        return try container.viewContext.count(for: request) // expect: main-context-off-main-queue
    }

    // The correct twin: the count runs inside the view context's perform.
    func unreadCountFixed() async throws -> Int {
        let context = container.viewContext
        return try await context.perform {
            let request = NSFetchRequest<Article>(entityName: "Article")
            request.predicate = NSPredicate(format: "isRead == NO")
            return try context.count(for: request)
        }
    }

    // A nonisolated synchronous method runs on its caller's queue: silent.
    nonisolated func unreadCountOnCaller() throws -> Int {
        try container.viewContext.count(for: NSFetchRequest<Article>(entityName: "Article"))
    }
}

// An actor whose executor is a queue of its choosing may run on the main queue:
// silent.
actor MainQueueCounter {
    let container: NSPersistentContainer
    nonisolated var unownedExecutor: UnownedSerialExecutor { MainActor.sharedUnownedExecutor }

    init(container: NSPersistentContainer) {
        self.container = container
    }

    func count() throws -> Int {
        try container.viewContext.count(for: NSFetchRequest<Article>(entityName: "Article"))
    }
}

// A type that inherits from a framework class the linter does not know may be
// @MainActor (a UIKit view): its async methods stay silent.
final class ArticleCell: FrameworkCell {
    let container = ArticleStack.shared.container

    func configure() async throws {
        _ = try container.viewContext.count(for: NSFetchRequest<Article>(entityName: "Article"))
    }
}

// A function that runs on its caller's actor stays silent: nonisolated(nonsending),
// or an isolated parameter.
final class CallerIsolated {
    let container = ArticleStack.shared.container

    nonisolated(nonsending) func count() async throws -> Int {
        try container.viewContext.count(for: NSFetchRequest<Article>(entityName: "Article"))
    }

    func count(isolation: isolated (any Actor)? = #isolation) async throws -> Int {
        try container.viewContext.count(for: NSFetchRequest<Article>(entityName: "Article"))
    }
}

// A helper called only from an async function runs on that function's executor.
final class ArticleCleaner {
    let stack = ArticleStack.shared

    func cleanUp() async {
        purgeRead()
    }

    // context-without-perform, the bug: called only from cleanUp(), a nonisolated
    // async function, it fetches from the private context off its queue.
    private func purgeRead() {
        let request = NSFetchRequest<Article>(entityName: "Article")
        request.predicate = NSPredicate(format: "isRead == YES")
        let read = (try? stack.importContext.fetch(request)) ?? [] // expect: context-without-perform
        print(read.count)
    }

    // The correct twin: called only inside the private context's perform.
    func cleanUpFixed() async {
        await stack.importContext.perform {
            self.purgeReadFixed()
        }
    }

    private func purgeReadFixed() {
        let request = NSFetchRequest<Article>(entityName: "Article")
        request.predicate = NSPredicate(format: "isRead == YES")
        let read = (try? stack.importContext.fetch(request)) ?? []
        print(read.count)
    }
}

// object-across-queues, the bug: `Task { }` made in a synchronous method of a type
// isolated to no actor inherits no actor and runs on Swift's global executor
// (SE-0304, "Task API"): the article is read there, off its context's queue.
final class ArticleSharer {
    func share(_ article: Article) {
        Task {
            print(article.title ?? "") // expect: object-across-queues
        }
    }

    // The correct twin: a plain value crosses into the task.
    func shareFixed(_ article: Article) {
        let title = article.title ?? ""
        Task {
            print(title)
        }
    }

    // A Task marked @MainActor runs on the main actor: silent, as the article's
    // context may be the view context.
    func shareOnMain(_ article: Article) {
        Task { @MainActor in
            print(article.title ?? "")
        }
    }
}

// A type that inherits from a framework class the linter does not know may be
// @MainActor (a UIKit view): a Task made in its methods may run on the main actor,
// and stays silent.
final class ArticleShareCell: FrameworkCell {
    func share(_ article: Article) {
        Task {
            print(article.title ?? "")
        }
    }
}
