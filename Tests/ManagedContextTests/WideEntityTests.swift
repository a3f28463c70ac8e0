import Foundation
import Testing
@testable import ManagedContext

/// An entity wider than 64 attributes. Core Data has no such limit (an entity may
/// have any number of properties); every change must reach the store.
final class Wide: ManagedObject {
    @Attribute("a0") var a0: Int64?
    @Attribute("a1") var a1: Int64?
    @Attribute("a2") var a2: Int64?
    @Attribute("a3") var a3: Int64?
    @Attribute("a4") var a4: Int64?
    @Attribute("a5") var a5: Int64?
    @Attribute("a6") var a6: Int64?
    @Attribute("a7") var a7: Int64?
    @Attribute("a8") var a8: Int64?
    @Attribute("a9") var a9: Int64?
    @Attribute("a10") var a10: Int64?
    @Attribute("a11") var a11: Int64?
    @Attribute("a12") var a12: Int64?
    @Attribute("a13") var a13: Int64?
    @Attribute("a14") var a14: Int64?
    @Attribute("a15") var a15: Int64?
    @Attribute("a16") var a16: Int64?
    @Attribute("a17") var a17: Int64?
    @Attribute("a18") var a18: Int64?
    @Attribute("a19") var a19: Int64?
    @Attribute("a20") var a20: Int64?
    @Attribute("a21") var a21: Int64?
    @Attribute("a22") var a22: Int64?
    @Attribute("a23") var a23: Int64?
    @Attribute("a24") var a24: Int64?
    @Attribute("a25") var a25: Int64?
    @Attribute("a26") var a26: Int64?
    @Attribute("a27") var a27: Int64?
    @Attribute("a28") var a28: Int64?
    @Attribute("a29") var a29: Int64?
    @Attribute("a30") var a30: Int64?
    @Attribute("a31") var a31: Int64?
    @Attribute("a32") var a32: Int64?
    @Attribute("a33") var a33: Int64?
    @Attribute("a34") var a34: Int64?
    @Attribute("a35") var a35: Int64?
    @Attribute("a36") var a36: Int64?
    @Attribute("a37") var a37: Int64?
    @Attribute("a38") var a38: Int64?
    @Attribute("a39") var a39: Int64?
    @Attribute("a40") var a40: Int64?
    @Attribute("a41") var a41: Int64?
    @Attribute("a42") var a42: Int64?
    @Attribute("a43") var a43: Int64?
    @Attribute("a44") var a44: Int64?
    @Attribute("a45") var a45: Int64?
    @Attribute("a46") var a46: Int64?
    @Attribute("a47") var a47: Int64?
    @Attribute("a48") var a48: Int64?
    @Attribute("a49") var a49: Int64?
    @Attribute("a50") var a50: Int64?
    @Attribute("a51") var a51: Int64?
    @Attribute("a52") var a52: Int64?
    @Attribute("a53") var a53: Int64?
    @Attribute("a54") var a54: Int64?
    @Attribute("a55") var a55: Int64?
    @Attribute("a56") var a56: Int64?
    @Attribute("a57") var a57: Int64?
    @Attribute("a58") var a58: Int64?
    @Attribute("a59") var a59: Int64?
    @Attribute("a60") var a60: Int64?
    @Attribute("a61") var a61: Int64?
    @Attribute("a62") var a62: Int64?
    @Attribute("a63") var a63: Int64?
    @Attribute("a64") var a64: Int64?
    @Attribute("a65") var a65: Int64?
    @Attribute("a66") var a66: Int64?
    @Attribute("a67") var a67: Int64?
    @Attribute("a68") var a68: Int64?
    @Attribute("a69") var a69: Int64?
    @Attribute("a70") var a70: Int64?
    @Attribute("a71") var a71: Int64?
    @Attribute("a72") var a72: Int64?
    @Attribute("a73") var a73: Int64?
    @Attribute("a74") var a74: Int64?
    @Attribute("a75") var a75: Int64?
    @Attribute("a76") var a76: Int64?
    @Attribute("a77") var a77: Int64?
    @Attribute("a78") var a78: Int64?
    @Attribute("a79") var a79: Int64?
    @Attribute("a80") var a80: Int64?
    @Attribute("a81") var a81: Int64?
    @Attribute("a82") var a82: Int64?
    @Attribute("a83") var a83: Int64?
    @Attribute("a84") var a84: Int64?
    @Attribute("a85") var a85: Int64?
    @Attribute("a86") var a86: Int64?
    @Attribute("a87") var a87: Int64?
    @Attribute("a88") var a88: Int64?
    @Attribute("a89") var a89: Int64?
    @Attribute("a90") var a90: Int64?
    @Attribute("a91") var a91: Int64?
    @Attribute("a92") var a92: Int64?
    @Attribute("a93") var a93: Int64?
    @Attribute("a94") var a94: Int64?
    @Attribute("a95") var a95: Int64?
    @Attribute("a96") var a96: Int64?
    @Attribute("a97") var a97: Int64?
    @Attribute("a98") var a98: Int64?
    @Attribute("a99") var a99: Int64?
    @Attribute("a100") var a100: Int64?
    @Attribute("a101") var a101: Int64?
    @Attribute("a102") var a102: Int64?
    @Attribute("a103") var a103: Int64?
    @Attribute("a104") var a104: Int64?
    @Attribute("a105") var a105: Int64?
    @Attribute("a106") var a106: Int64?
    @Attribute("a107") var a107: Int64?
    @Attribute("a108") var a108: Int64?
    @Attribute("a109") var a109: Int64?
    @Attribute("a110") var a110: Int64?
    @Attribute("a111") var a111: Int64?
    @Attribute("a112") var a112: Int64?
    @Attribute("a113") var a113: Int64?
    @Attribute("a114") var a114: Int64?
    @Attribute("a115") var a115: Int64?
    @Attribute("a116") var a116: Int64?
    @Attribute("a117") var a117: Int64?
    @Attribute("a118") var a118: Int64?
    @Attribute("a119") var a119: Int64?
    @Attribute("a120") var a120: Int64?
    @Attribute("a121") var a121: Int64?
    @Attribute("a122") var a122: Int64?
    @Attribute("a123") var a123: Int64?
    @Attribute("a124") var a124: Int64?
    @Attribute("a125") var a125: Int64?
    @Attribute("a126") var a126: Int64?
    @Attribute("a127") var a127: Int64?
    @Attribute("a128") var a128: Int64?
    @Attribute("a129") var a129: Int64?
    @Attribute("a130") var a130: Int64?
    @Attribute("a131") var a131: Int64?
    @Attribute("a132") var a132: Int64?
    @Attribute("a133") var a133: Int64?
    @Attribute("a134") var a134: Int64?
    @Attribute("a135") var a135: Int64?
    @Attribute("a136") var a136: Int64?
    @Attribute("a137") var a137: Int64?
    @Attribute("a138") var a138: Int64?
    @Attribute("a139") var a139: Int64?
    @Attribute("a140") var a140: Int64?
    @Attribute("a141") var a141: Int64?
    @Attribute("a142") var a142: Int64?
    @Attribute("a143") var a143: Int64?
    @Attribute("a144") var a144: Int64?
    @Attribute("a145") var a145: Int64?
    @Attribute("a146") var a146: Int64?
    @Attribute("a147") var a147: Int64?
    @Attribute("a148") var a148: Int64?
    @Attribute("a149") var a149: Int64?
    @Attribute("a150") var a150: Int64?
    @Attribute("a151") var a151: Int64?
    @Attribute("a152") var a152: Int64?
    @Attribute("a153") var a153: Int64?
    @Attribute("a154") var a154: Int64?
    @Attribute("a155") var a155: Int64?
    @Attribute("a156") var a156: Int64?
    @Attribute("a157") var a157: Int64?
    @Attribute("a158") var a158: Int64?
    @Attribute("a159") var a159: Int64?
    @Attribute("a160") var a160: Int64?
    @Attribute("a161") var a161: Int64?
    @Attribute("a162") var a162: Int64?
    @Attribute("a163") var a163: Int64?
    @Attribute("a164") var a164: Int64?
    @Attribute("a165") var a165: Int64?
    @Attribute("a166") var a166: Int64?
    @Attribute("a167") var a167: Int64?
    @Attribute("a168") var a168: Int64?
    @Attribute("a169") var a169: Int64?
    @Attribute("a170") var a170: Int64?
    @Attribute("a171") var a171: Int64?
    @Attribute("a172") var a172: Int64?
    @Attribute("a173") var a173: Int64?
    @Attribute("a174") var a174: Int64?
    @Attribute("a175") var a175: Int64?
    @Attribute("a176") var a176: Int64?
    @Attribute("a177") var a177: Int64?
    @Attribute("a178") var a178: Int64?
    @Attribute("a179") var a179: Int64?
    @Attribute("a180") var a180: Int64?
    @Attribute("a181") var a181: Int64?
    @Attribute("a182") var a182: Int64?
    @Attribute("a183") var a183: Int64?
    @Attribute("a184") var a184: Int64?
    @Attribute("a185") var a185: Int64?
    @Attribute("a186") var a186: Int64?
    @Attribute("a187") var a187: Int64?
    @Attribute("a188") var a188: Int64?
    @Attribute("a189") var a189: Int64?
    @Attribute("a190") var a190: Int64?
    @Attribute("a191") var a191: Int64?
    @Attribute("a192") var a192: Int64?
    @Attribute("a193") var a193: Int64?
    @Attribute("a194") var a194: Int64?
    @Attribute("a195") var a195: Int64?
    @Attribute("a196") var a196: Int64?
    @Attribute("a197") var a197: Int64?
    @Attribute("a198") var a198: Int64?
    @Attribute("a199") var a199: Int64?
}

let wideModel = ManagedObjectModel(entities: [Wide.self])

private func setAll(_ o: Wide, base: Int64) {
            o.a0 = 0 + base
            o.a1 = 1 + base
            o.a2 = 2 + base
            o.a3 = 3 + base
            o.a4 = 4 + base
            o.a5 = 5 + base
            o.a6 = 6 + base
            o.a7 = 7 + base
            o.a8 = 8 + base
            o.a9 = 9 + base
            o.a10 = 10 + base
            o.a11 = 11 + base
            o.a12 = 12 + base
            o.a13 = 13 + base
            o.a14 = 14 + base
            o.a15 = 15 + base
            o.a16 = 16 + base
            o.a17 = 17 + base
            o.a18 = 18 + base
            o.a19 = 19 + base
            o.a20 = 20 + base
            o.a21 = 21 + base
            o.a22 = 22 + base
            o.a23 = 23 + base
            o.a24 = 24 + base
            o.a25 = 25 + base
            o.a26 = 26 + base
            o.a27 = 27 + base
            o.a28 = 28 + base
            o.a29 = 29 + base
            o.a30 = 30 + base
            o.a31 = 31 + base
            o.a32 = 32 + base
            o.a33 = 33 + base
            o.a34 = 34 + base
            o.a35 = 35 + base
            o.a36 = 36 + base
            o.a37 = 37 + base
            o.a38 = 38 + base
            o.a39 = 39 + base
            o.a40 = 40 + base
            o.a41 = 41 + base
            o.a42 = 42 + base
            o.a43 = 43 + base
            o.a44 = 44 + base
            o.a45 = 45 + base
            o.a46 = 46 + base
            o.a47 = 47 + base
            o.a48 = 48 + base
            o.a49 = 49 + base
            o.a50 = 50 + base
            o.a51 = 51 + base
            o.a52 = 52 + base
            o.a53 = 53 + base
            o.a54 = 54 + base
            o.a55 = 55 + base
            o.a56 = 56 + base
            o.a57 = 57 + base
            o.a58 = 58 + base
            o.a59 = 59 + base
            o.a60 = 60 + base
            o.a61 = 61 + base
            o.a62 = 62 + base
            o.a63 = 63 + base
            o.a64 = 64 + base
            o.a65 = 65 + base
            o.a66 = 66 + base
            o.a67 = 67 + base
            o.a68 = 68 + base
            o.a69 = 69 + base
            o.a70 = 70 + base
            o.a71 = 71 + base
            o.a72 = 72 + base
            o.a73 = 73 + base
            o.a74 = 74 + base
            o.a75 = 75 + base
            o.a76 = 76 + base
            o.a77 = 77 + base
            o.a78 = 78 + base
            o.a79 = 79 + base
            o.a80 = 80 + base
            o.a81 = 81 + base
            o.a82 = 82 + base
            o.a83 = 83 + base
            o.a84 = 84 + base
            o.a85 = 85 + base
            o.a86 = 86 + base
            o.a87 = 87 + base
            o.a88 = 88 + base
            o.a89 = 89 + base
            o.a90 = 90 + base
            o.a91 = 91 + base
            o.a92 = 92 + base
            o.a93 = 93 + base
            o.a94 = 94 + base
            o.a95 = 95 + base
            o.a96 = 96 + base
            o.a97 = 97 + base
            o.a98 = 98 + base
            o.a99 = 99 + base
            o.a100 = 100 + base
            o.a101 = 101 + base
            o.a102 = 102 + base
            o.a103 = 103 + base
            o.a104 = 104 + base
            o.a105 = 105 + base
            o.a106 = 106 + base
            o.a107 = 107 + base
            o.a108 = 108 + base
            o.a109 = 109 + base
            o.a110 = 110 + base
            o.a111 = 111 + base
            o.a112 = 112 + base
            o.a113 = 113 + base
            o.a114 = 114 + base
            o.a115 = 115 + base
            o.a116 = 116 + base
            o.a117 = 117 + base
            o.a118 = 118 + base
            o.a119 = 119 + base
            o.a120 = 120 + base
            o.a121 = 121 + base
            o.a122 = 122 + base
            o.a123 = 123 + base
            o.a124 = 124 + base
            o.a125 = 125 + base
            o.a126 = 126 + base
            o.a127 = 127 + base
            o.a128 = 128 + base
            o.a129 = 129 + base
            o.a130 = 130 + base
            o.a131 = 131 + base
            o.a132 = 132 + base
            o.a133 = 133 + base
            o.a134 = 134 + base
            o.a135 = 135 + base
            o.a136 = 136 + base
            o.a137 = 137 + base
            o.a138 = 138 + base
            o.a139 = 139 + base
            o.a140 = 140 + base
            o.a141 = 141 + base
            o.a142 = 142 + base
            o.a143 = 143 + base
            o.a144 = 144 + base
            o.a145 = 145 + base
            o.a146 = 146 + base
            o.a147 = 147 + base
            o.a148 = 148 + base
            o.a149 = 149 + base
            o.a150 = 150 + base
            o.a151 = 151 + base
            o.a152 = 152 + base
            o.a153 = 153 + base
            o.a154 = 154 + base
            o.a155 = 155 + base
            o.a156 = 156 + base
            o.a157 = 157 + base
            o.a158 = 158 + base
            o.a159 = 159 + base
            o.a160 = 160 + base
            o.a161 = 161 + base
            o.a162 = 162 + base
            o.a163 = 163 + base
            o.a164 = 164 + base
            o.a165 = 165 + base
            o.a166 = 166 + base
            o.a167 = 167 + base
            o.a168 = 168 + base
            o.a169 = 169 + base
            o.a170 = 170 + base
            o.a171 = 171 + base
            o.a172 = 172 + base
            o.a173 = 173 + base
            o.a174 = 174 + base
            o.a175 = 175 + base
            o.a176 = 176 + base
            o.a177 = 177 + base
            o.a178 = 178 + base
            o.a179 = 179 + base
            o.a180 = 180 + base
            o.a181 = 181 + base
            o.a182 = 182 + base
            o.a183 = 183 + base
            o.a184 = 184 + base
            o.a185 = 185 + base
            o.a186 = 186 + base
            o.a187 = 187 + base
            o.a188 = 188 + base
            o.a189 = 189 + base
            o.a190 = 190 + base
            o.a191 = 191 + base
            o.a192 = 192 + base
            o.a193 = 193 + base
            o.a194 = 194 + base
            o.a195 = 195 + base
            o.a196 = 196 + base
            o.a197 = 197 + base
            o.a198 = 198 + base
            o.a199 = 199 + base
}

private func readAll(_ o: Wide) -> [Int64?] {
    [o.a0, o.a1, o.a2, o.a3, o.a4, o.a5, o.a6, o.a7, o.a8, o.a9, o.a10, o.a11, o.a12, o.a13, o.a14, o.a15, o.a16, o.a17, o.a18, o.a19, o.a20, o.a21, o.a22, o.a23, o.a24, o.a25, o.a26, o.a27, o.a28, o.a29, o.a30, o.a31, o.a32, o.a33, o.a34, o.a35, o.a36, o.a37, o.a38, o.a39, o.a40, o.a41, o.a42, o.a43, o.a44, o.a45, o.a46, o.a47, o.a48, o.a49, o.a50, o.a51, o.a52, o.a53, o.a54, o.a55, o.a56, o.a57, o.a58, o.a59, o.a60, o.a61, o.a62, o.a63, o.a64, o.a65, o.a66, o.a67, o.a68, o.a69, o.a70, o.a71, o.a72, o.a73, o.a74, o.a75, o.a76, o.a77, o.a78, o.a79, o.a80, o.a81, o.a82, o.a83, o.a84, o.a85, o.a86, o.a87, o.a88, o.a89, o.a90, o.a91, o.a92, o.a93, o.a94, o.a95, o.a96, o.a97, o.a98, o.a99, o.a100, o.a101, o.a102, o.a103, o.a104, o.a105, o.a106, o.a107, o.a108, o.a109, o.a110, o.a111, o.a112, o.a113, o.a114, o.a115, o.a116, o.a117, o.a118, o.a119, o.a120, o.a121, o.a122, o.a123, o.a124, o.a125, o.a126, o.a127, o.a128, o.a129, o.a130, o.a131, o.a132, o.a133, o.a134, o.a135, o.a136, o.a137, o.a138, o.a139, o.a140, o.a141, o.a142, o.a143, o.a144, o.a145, o.a146, o.a147, o.a148, o.a149, o.a150, o.a151, o.a152, o.a153, o.a154, o.a155, o.a156, o.a157, o.a158, o.a159, o.a160, o.a161, o.a162, o.a163, o.a164, o.a165, o.a166, o.a167, o.a168, o.a169, o.a170, o.a171, o.a172, o.a173, o.a174, o.a175, o.a176, o.a177, o.a178, o.a179, o.a180, o.a181, o.a182, o.a183, o.a184, o.a185, o.a186, o.a187, o.a188, o.a189, o.a190, o.a191, o.a192, o.a193, o.a194, o.a195, o.a196, o.a197, o.a198, o.a199]
}

@Suite struct WideEntityTests {
    @Test("an update to each of 200 attributes reaches the store and reads back from a fresh context")
    func everyAttributeRoundTrips() throws {
        let stack = try TestStack(model: wideModel)
        let writer = stack.privateContext("writer")
        let id: ManagedObjectID = try writer.performAndWait {
            let o = Wide(context: writer)
            try writer.save()
            return o.objectID
        }
        try writer.performAndWait {
            setAll(writer.object(with: id) as! Wide, base: 1_000)
            try writer.save()
        }
        let reader = stack.privateContext("reader")
        let values = try reader.performAndWait { readAll(try reader.existingObject(with: id) as! Wide) }
        #expect(values == (0..<200).map { Int64($0) + 1_000 })
    }

    @Test("a conflict on a wide entity merges property by property past the 64th attribute")
    func mergeByPropertyPastSixtyFour() throws {
        let stack = try TestStack(model: wideModel)
        let a = stack.privateContext("A"), b = stack.privateContext("B")
        let id: ManagedObjectID = try a.performAndWait {
            let o = Wide(context: a)
            setAll(o, base: 0)
            try a.save()
            return o.objectID
        }
        let inB = try b.performAndWait { try b.existingObject(with: id) as! Wide }
        try a.performAndWait {
            let o = a.object(with: id) as! Wide
            o.a150 = -150
            try a.save()
        }
        b.mergePolicy = .mergeByPropertyStoreTrump
        try b.performAndWait {
            inB.a199 = -199
            inB.a70 = -70
            try b.save()
        }
        let reader = stack.privateContext("reader")
        let o = try reader.performAndWait { try reader.existingObject(with: id) as! Wide }
        reader.performAndWait {
            #expect(o.a150 == -150, "A's change survives")
            #expect(o.a199 == -199 && o.a70 == -70, "B's changes past the 64th attribute are written")
            #expect(o.a0 == 0 && o.a100 == 100)
        }
    }
}
