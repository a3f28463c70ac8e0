import CoreData
import Foundation

/// Objects a project function returns from a context property keep that context, even
/// when the function fetched them inside the context's performAndWait { }: read after
/// it, off the context's queue, they are used on the wrong queue.
final class Article: NSManagedObject {
    @NSManaged var link: String?
}

final class ReaderStack {
    static let shared = ReaderStack()
    let container = NSPersistentContainer(name: "Reader")
    var mainContext: NSManagedObjectContext { container.viewContext }
}

final class ArticleSync {
    let stack = ReaderStack.shared

    // main-context-off-main-queue, the bug: the view context's articles, fetched inside
    // its performAndWait, read in a nonisolated async function (Swift's global executor).
    func uploadAll() async {
        for article in unsentArticles() {
            await post(article.link ?? "") // expect: main-context-off-main-queue
        }
    }

    // The correct twin: plain values cross, read on the context's queue.
    func uploadAllFixed() async {
        for link in unsentLinks() {
            await post(link)
        }
    }

    func post(_ link: String) async {}

    func unsentArticles() -> [Article] {
        let context = stack.mainContext
        var articles: [Article] = []
        context.performAndWait {
            articles = (try? context.fetch(NSFetchRequest<Article>(entityName: "Article"))) ?? []
        }
        return articles
    }

    func unsentLinks() -> [String] {
        let context = stack.mainContext
        var links: [String] = []
        context.performAndWait {
            let articles = (try? context.fetch(NSFetchRequest<Article>(entityName: "Article"))) ?? []
            links = articles.compactMap(\.link)
        }
        return links
    }
}
