/// The storage of the scheduler's tables (`SortedTable`, `QueueTable`): keys and their
/// values in two arrays, a value changed in place where it is, and leaving the table
/// when it is set to nil. How a key's index is found (a binary search, a scan) and where
/// a new key goes is the table's.
///
/// Two arrays rather than a dictionary: a dictionary type costs its metadata's first use,
/// and a dictionary keyed by an integer type the lookup of its `Hashable` conformance,
/// in the dispatch control's hooks of a short explored process (docs/benchmarks.md, "The
/// control's cost made cheaper").
struct KeyedSlots<Key: Equatable, Value>: Sequence {
    typealias Element = (key: Key, value: Value)

    private(set) var keys: [Key] = []
    /// Each key's value (nil only while a change is under way).
    private var slots: [Value?] = []

    /// The value at `index`, borrowed to read and changed in place; set to nil, it leaves.
    subscript(at index: Int) -> Value? {
        _read { yield slots[index] }
        _modify {
            yield &slots[index]
            if slots[index] == nil {
                keys.remove(at: index)
                slots.remove(at: index)
            }
        }
    }

    mutating func insert(_ value: Value, for key: Key, at index: Int) {
        if index == keys.count {
            keys.append(key)
            slots.append(value)
        } else {
            keys.insert(key, at: index)
            slots.insert(value, at: index)
        }
    }

    mutating func remove(at index: Int) -> Value? {
        keys.remove(at: index)
        return slots.remove(at: index)
    }

    /// Whether any value satisfies `predicate`, each read where it is (not copied).
    func containsValue(where predicate: (Value) -> Bool) -> Bool {
        slots.contains { $0.map(predicate) ?? false }
    }

    /// The index of the newest value that satisfies `predicate`.
    func lastIndex(where predicate: (Value) -> Bool) -> Int? {
        slots.lastIndex { $0.map(predicate) ?? false }
    }

    struct Iterator: IteratorProtocol {
        fileprivate let storage: KeyedSlots
        fileprivate var index = 0

        mutating func next() -> Element? {
            while index < storage.keys.count {
                defer { index += 1 }
                if let value = storage.slots[index] { return (storage.keys[index], value) }
            }
            return nil
        }
    }

    func makeIterator() -> Iterator { Iterator(storage: self) }
}
