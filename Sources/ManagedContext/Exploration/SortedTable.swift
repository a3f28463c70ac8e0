/// A map from `Int` keys (unit ids, the addresses of libdispatch objects, context numbers)
/// to values, kept sorted by key: the scheduler's integer-keyed tables, instead of
/// dictionaries.
///
/// A process's first dictionary keyed by some integer type makes the Swift runtime look up
/// that type's `Hashable` conformance through every conformance record of the program
/// (50 to 70 µs in an app-sized binary), and every dictionary type costs its metadata's
/// first use; an explored process is short, and meets these first in the dispatch
/// control's hooks. This table keeps its values in `KeyedSlots`, which need neither; its
/// tables are small (a run's units, queues, timers), where a binary search is as fast.
struct SortedTable<Value>: Sequence {
    typealias Element = (key: Int, value: Value)

    /// The values by ascending key.
    private var storage = KeyedSlots<Int, Value>()

    init() {}

    /// Where `key` is, or would be inserted.
    private func position(of key: Int) -> (index: Int, found: Bool) {
        let keys = storage.keys
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
            if found { yield storage[at: index] } else { yield nil }
        }
        _modify {
            let (index, found) = position(of: key)
            if found {
                yield &storage[at: index]  // in place: a value is not copied at each change
            } else {
                var added: Value?
                yield &added
                if let added { storage.insert(added, for: key, at: index) }
            }
        }
    }

    subscript(key: Int, default defaultValue: @autoclosure () -> Value) -> Value {
        get { self[key] ?? defaultValue() }
        _modify {
            let (index, found) = position(of: key)
            if !found { storage.insert(defaultValue(), for: key, at: index) }
            yield &storage[at: index]!
        }
    }

    @discardableResult
    mutating func removeValue(forKey key: Int) -> Value? {
        let (index, found) = position(of: key)
        guard found else { return nil }
        return storage.remove(at: index)
    }

    var isEmpty: Bool { storage.keys.isEmpty }

    func makeIterator() -> KeyedSlots<Int, Value>.Iterator { storage.makeIterator() }
}
