/// A map from `Int` keys (unit ids, the addresses of libdispatch objects, context numbers)
/// to values, kept sorted by key: the scheduler's tables, instead of dictionaries.
///
/// A process's first dictionary keyed by some integer type makes the Swift runtime look up
/// that type's `Hashable` conformance through every conformance record of the program
/// (50 to 70 µs in an app-sized binary), and every dictionary type costs its metadata's
/// first use; an explored process is short, and meets these first in the dispatch
/// control's hooks. This table's storage is two arrays, which need neither; its tables
/// are small (a run's units, queues, timers), where a binary search is as fast.
struct SortedTable<Value>: Sequence {
    typealias Element = (key: Int, value: Value)

    /// The keys, ascending, and their values (nil only while a change is under way).
    private var keys: [Int] = []
    private var slots: [Value?] = []

    init() {}

    /// Where `key` is, or would be inserted.
    private func position(of key: Int) -> (index: Int, found: Bool) {
        var low = 0
        var high = keys.count
        if let last = keys.last, last < key { low = high }  // a new unit's id: appended
        while low < high {
            let middle = (low + high) / 2
            if keys[middle] < key { low = middle + 1 } else { high = middle }
        }
        return (low, low < keys.count && keys[low] == key)
    }

    subscript(key: Int) -> Value? {
        _read {  // borrowed: reading one field does not copy the whole value
            let (index, found) = position(of: key)
            if found { yield slots[index] } else { yield nil }
        }
        _modify {
            let (index, found) = position(of: key)
            if found {
                yield &slots[index]  // in place: a value is not copied at each change
                if slots[index] == nil {
                    keys.remove(at: index)
                    slots.remove(at: index)
                }
            } else {
                var added: Value?
                yield &added
                if let added { insert(added, for: key, at: index) }
            }
        }
    }

    subscript(key: Int, default defaultValue: @autoclosure () -> Value) -> Value {
        get { self[key] ?? defaultValue() }
        _modify {
            let (index, found) = position(of: key)
            if !found { insert(defaultValue(), for: key, at: index) }
            yield &slots[index]!
        }
    }

    private mutating func insert(_ value: Value, for key: Int, at index: Int) {
        if index == keys.count {
            keys.append(key)
            slots.append(value)
        } else {
            keys.insert(key, at: index)
            slots.insert(value, at: index)
        }
    }

    @discardableResult
    mutating func removeValue(forKey key: Int) -> Value? {
        let (index, found) = position(of: key)
        guard found else { return nil }
        keys.remove(at: index)
        return slots.remove(at: index)
    }

    var isEmpty: Bool { keys.isEmpty }

    struct Iterator: IteratorProtocol {
        fileprivate let table: SortedTable
        fileprivate var index = 0

        mutating func next() -> Element? {
            while index < table.keys.count {
                defer { index += 1 }
                if let value = table.slots[index] { return (table.keys[index], value) }
            }
            return nil
        }
    }

    func makeIterator() -> Iterator { Iterator(table: self) }
}
