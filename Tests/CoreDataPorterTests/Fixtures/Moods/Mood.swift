// A fixture of ours in the style of an Xcode-era model layer: what issue 46, item 9
// found in real ones (constants, casts, perform, Foundation-only imports).
import Foundation

@objc(Mood)
final class Mood: NSManagedObject {
    @NSManaged var label: String?
    @NSManaged var score: Int16
}
