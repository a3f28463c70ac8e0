// A fixture of ours in the style of an Xcode-era model layer: what issue 46, item 9
// found in real ones (constants, casts, perform, Foundation-only imports).
import Foundation

enum ModelConstants {
    static let name = "Moods"
    static let modelExtension = "momd"
    static let saveSelector = #selector(MoodStore.contextDidSave(_:))
}
