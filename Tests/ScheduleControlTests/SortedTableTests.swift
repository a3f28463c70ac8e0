@testable import ScheduleControl
import Foundation
import Testing

/// The scheduler's integer-keyed tables (SortedTable.swift) behave as the dictionaries
/// they replaced, and iterate in key order.
@Suite struct SortedTableTests {
    @Test("values are set, changed in place, defaulted and removed by key; iteration is in key order")
    func dictionaryBehaviour() {
        var table = SortedTable<[String]>()
        #expect(table.isEmpty)
        table[7] = ["seven"]
        table[2] = ["two"]
        table[-5] = ["minus five"]  // an address's bit pattern may be negative
        table[9] = ["nine"]
        #expect(table.map(\.key) == [-5, 2, 7, 9])
        table[7]?.append("again")
        #expect(table[7] == ["seven", "again"])
        table[3, default: []].append("three")
        table[2, default: []].append("more")
        #expect(table[3] == ["three"])
        #expect(table[2] == ["two", "more"])
        table[4]?.append("absent")  // no value: nothing is added
        #expect(table[4] == nil)
        table[9] = nil
        #expect(table.removeValue(forKey: -5) == ["minus five"])
        #expect(table.removeValue(forKey: 100) == nil)
        #expect(table.map(\.key) == [2, 3, 7])
        #expect(table.map(\.value) == [["two", "more"], ["three"], ["seven", "again"]])
    }

    @Test("a value set to nil in place leaves the table")
    func clearedInPlace() {
        var table = SortedTable<Int>()
        for key in 0..<5 { table[key] = key * 10 }
        func clear(_ value: inout Int?) { value = nil }
        clear(&table[3])
        #expect(table.map(\.key) == [0, 1, 2, 4])
    }
}

/// A queue's label read from its bytes only where a logical queue is named.
@Suite struct QueueLabelTests {
    @Test("prefixes are compared on the bytes; the text falls back when there is none")
    func label() {
        let xctest = QueueLabel.made("org.swift.XCTest.waiter")
        #expect(DispatchControl.isTestHarness(xctest))
        #expect(!DispatchControl.isTestHarness(.made("org.swift.XCTes")))
        #expect(!DispatchControl.isTestHarness(.made("com.example.org.swift.XCTest")))
        #expect(xctest.text == "org.swift.XCTest.waiter")
        #expect(QueueLabel(bytes: nil).text == "queue")
        #expect(!QueueLabel(bytes: nil).hasPrefix("q"))
        #expect(QueueLabel.made("q1").hasPrefix("q"))  // a one-scalar literal has no pointer of its own
        #expect(!QueueLabel.made("").hasPrefix("q"))
        #expect(QueueLabel(bytes: nil, fallback: "dispatch_apply").text == "dispatch_apply")
        #expect(QueueLabel.made("").text == "queue")
    }
}

extension QueueLabel {
    /// A label of `text`, as a queue holds its own: bytes that stay (for the test's run).
    static func made(_ text: String) -> QueueLabel { QueueLabel(bytes: UnsafePointer(strdup(text)!)) }
}
