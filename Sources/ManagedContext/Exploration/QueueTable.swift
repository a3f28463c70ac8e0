extension ControlledScheduler {
    /// The run's logical queues by key ("main", "q1", "q2"...), in the order they were
    /// made: the order a decision walks them in, and the order `release` hands their
    /// blocks back in.
    ///
    /// A run holds a few at a time (a concurrent queue's is forgotten when its block
    /// ended), and their keys are small strings, compared as two words: a scan from the
    /// newest (the one a hook just made or fed) is cheaper than hashing the key, at every
    /// one of the several lookups a scheduling point makes.
    struct QueueTable: Sequence {
        typealias Element = (key: String, value: QueueState)

        private var storage = KeyedSlots<String, QueueState>()

        subscript(key: String) -> QueueState? {
            _read {  // borrowed: reading one field does not copy the whole state
                if let index = storage.keys.lastIndex(of: key) { yield storage[at: index] } else { yield nil }
            }
            _modify {
                if let index = storage.keys.lastIndex(of: key) {
                    yield &storage[at: index]  // in place: a state is not copied at each change
                } else {
                    var added: QueueState?
                    yield &added
                    if let added { storage.insert(added, for: key, at: storage.keys.count) }
                }
            }
        }

        /// Whether a queue other than `key` in the serial order of `domain` runs a block now.
        func isBusy(domain: UInt, besides key: String) -> Bool {
            storage.containsValue { $0.domain == domain && $0.busy && $0.key != key }
        }

        /// The logical queue of the serial libdispatch queue at `address`, once met.
        func key(ofSerialQueue address: UInt) -> String? {
            storage.lastIndex { $0.serialQueueAddress == address }.map { storage.keys[$0] }
        }

        /// The keys, oldest first.
        var orderedKeys: [String] { storage.keys }

        var values: LazyMapSequence<QueueTable, QueueState> { lazy.map(\.value) }

        func makeIterator() -> KeyedSlots<String, QueueState>.Iterator { storage.makeIterator() }
    }
}
