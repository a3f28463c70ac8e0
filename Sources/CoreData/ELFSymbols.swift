import Foundation

/// Reads the names in an ELF64 file's symbol tables (`.symtab` and `.dynsym`),
/// mapped read-only, keeping those `keep` accepts. A file that is not ELF64 gives none.
enum ELFSymbols {
    static func names(inFileAt path: String, keep: (String) -> Bool) -> [String] {
        guard let data = try? Data(contentsOf: URL(fileURLWithPath: path), options: .alwaysMapped) else { return [] }
        return data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) -> [String] in
            guard raw.count > 64, raw[0] == 0x7F, raw[1] == 0x45, raw[2] == 0x4C, raw[3] == 0x46, raw[4] == 2 else { return [] }
            func u16(_ o: Int) -> Int { Int(raw.loadUnaligned(fromByteOffset: o, as: UInt16.self)) }
            func u32(_ o: Int) -> Int { Int(raw.loadUnaligned(fromByteOffset: o, as: UInt32.self)) }
            func u64(_ o: Int) -> Int { Int(truncatingIfNeeded: raw.loadUnaligned(fromByteOffset: o, as: UInt64.self)) }
            let sectionsAt = u64(0x28), sectionSize = u16(0x3A), sectionCount = u16(0x3C)
            guard sectionSize >= 64, sectionsAt > 0, sectionsAt + sectionSize * sectionCount <= raw.count else { return [] }
            var result: [String] = []
            for i in 0..<sectionCount {
                let header = sectionsAt + i * sectionSize
                let type = u32(header + 4)
                guard type == 2 || type == 11 else { continue }  // SHT_SYMTAB, SHT_DYNSYM
                let offset = u64(header + 0x18), size = u64(header + 0x20), link = u32(header + 0x28)
                let entrySize = max(u64(header + 0x38), 24)
                guard link < sectionCount, offset + size <= raw.count else { continue }
                let strings = sectionsAt + link * sectionSize
                let stringsAt = u64(strings + 0x18), stringsSize = u64(strings + 0x20)
                guard stringsAt + stringsSize <= raw.count else { continue }
                var entry = offset
                while entry + entrySize <= offset + size {
                    let nameAt = u32(entry)
                    entry += entrySize
                    guard nameAt > 0, nameAt < stringsSize else { continue }
                    let start = stringsAt + nameAt
                    // Cheap first test on the bytes: "$s" at the start.
                    guard raw[start] == 0x24, raw[start + 1] == 0x73 else { continue }
                    var end = start
                    while end < stringsAt + stringsSize && raw[end] != 0 { end += 1 }
                    let name = String(decoding: UnsafeRawBufferPointer(rebasing: raw[start..<end]), as: UTF8.self)
                    if keep(name) { result.append(name) }
                }
            }
            return result
        }
    }
}
