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

        private var keys: [String] = []
        /// Each key's state (nil only while a change is under way).
        private var states: [QueueState?] = []

        subscript(key: String) -> QueueState? {
            _read {  // borrowed: reading one field does not copy the whole state
                if let index = keys.lastIndex(of: key) { yield states[index] } else { yield nil }
            }
            _modify {
                if let index = keys.lastIndex(of: key) {
                    yield &states[index]  // in place: a state is not copied at each change
                    if states[index] == nil {
                        keys.remove(at: index)
                        states.remove(at: index)
                    }
                } else {
                    var added: QueueState?
                    yield &added
                    if let added {
                        keys.append(key)
                        states.append(added)
                    }
                }
            }
        }

        /// Whether a queue other than `key` in the serial order of `domain` runs a block now.
        func isBusy(domain: UInt, besides key: String) -> Bool {
            states.indices.contains { states[$0]?.domain == domain && states[$0]?.busy == true && keys[$0] != key }
        }

        /// The logical queue of the serial libdispatch queue at `address`, once met.
        func key(ofSerialQueue address: UInt) -> String? {
            states.lastIndex { $0?.serialQueueAddress == address }.map { keys[$0] }
        }

        /// The keys, oldest first.
        var orderedKeys: [String] { keys }

        var values: LazyMapSequence<QueueTable, QueueState> { lazy.map(\.value) }

        struct Iterator: IteratorProtocol {
            fileprivate let table: QueueTable
            fileprivate var index = 0

            mutating func next() -> Element? {
                while index < table.keys.count {
                    defer { index += 1 }
                    if let state = table.states[index] { return (table.keys[index], state) }
                }
                return nil
            }
        }

        func makeIterator() -> Iterator { Iterator(table: self) }
    }
}
