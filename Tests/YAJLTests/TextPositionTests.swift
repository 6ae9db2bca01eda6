import Testing
import YAJL

@testable import YAJLCore

/// The position tracker's backward searches (memrchr underneath) against a byte-by-byte reference:
/// the last unescaped quote of a chunk says where a string that spans reads began.
@Suite("Text position: backward searches")
struct TextPositionTests {
    /// The reference: the last `"` before `end` with an even run of backslashes before it
    /// (counting `earlier` when the run reaches the start).
    static func referenceQuote(_ bytes: [UInt8], before end: Int, precededBy earlier: Int) -> Int? {
        var i = end - 1
        while i >= 0 {
            if bytes[i] == UInt8(ascii: "\"") {
                var slashes = 0
                var j = i - 1
                while j >= 0 && bytes[j] == UInt8(ascii: "\\") {
                    slashes += 1
                    j -= 1
                }
                if j < 0 { slashes += earlier }
                if slashes % 2 == 0 { return i }
            }
            i -= 1
        }
        return nil
    }

    @Test(
        arguments: [
            (#"abc"#, 0, nil),
            (#""abc"#, 0, 0),
            (#"\"abc"#, 0, nil),
            (#"\\"abc"#, 0, 2),
            (#""a\"b"#, 0, 0),
            (#""abc"#, 1, nil),
            (#""abc"#, 2, 0),
            (#"x"y\"z"#, 0, 1),
            (#"1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,32"#, 0, nil),
        ] as [(String, Int, Int?)]
    )
    func lastUnescapedQuote(text: String, earlier: Int, expected: Int?) {
        let bytes = Array(text.utf8)
        let found = bytes.withUnsafeBytes {
            TextPosition.openingQuote(in: $0, before: bytes.count, precededBy: earlier)
        }
        #expect(found == expected)
        #expect(found == Self.referenceQuote(bytes, before: bytes.count, precededBy: earlier))
    }

    /// Random runs of quotes, backslashes, digits and spaces (long enough for the vector loop),
    /// at every end: the same answer as the reference.
    @Test func agreesWithTheReferenceOnRandomBytes() {
        var generator = SystemRandomNumberGenerator()
        let alphabet: [UInt8] = Array(#""\\1 ,"#.utf8) + Array(repeating: UInt8(ascii: "7"), count: 12)
        for _ in 0..<400 {
            let length = Int.random(in: 0...300, using: &generator)
            let bytes = (0..<length).map { _ in alphabet.randomElement(using: &generator)! }
            let earlier = Int.random(in: 0...3, using: &generator)
            bytes.withUnsafeBytes { raw in
                for end in stride(from: 0, through: length, by: max(1, length / 17)) {
                    let found = TextPosition.openingQuote(in: raw, before: end, precededBy: earlier)
                    #expect(
                        found == Self.referenceQuote(bytes, before: end, precededBy: earlier),
                        "\(bytes) end \(end)"
                    )
                }
                let newline = TextPosition.lastIndex(of: UInt8(ascii: " "), in: raw, before: length)
                #expect(newline == bytes.lastIndex(of: UInt8(ascii: " ")))
            }
        }
    }

    /// Newline counting (16 bytes a step, byte counters summed every 255 steps) against a plain
    /// count: lengths around a step and around the 255-step batch, all newlines (the counters'
    /// largest values) and none, from every alignment.
    @Test(arguments: [0, 1, 15, 16, 17, 31, 33, 255 * 16 - 1, 255 * 16, 255 * 16 + 1, 255 * 16 * 2 + 7, 100_003])
    func countsNewlines(length: Int) {
        var generator = SystemRandomNumberGenerator()
        let fills: [(Int) -> UInt8] = [
            { _ in UInt8(ascii: "\n") },
            { _ in UInt8(ascii: " ") },
            { _ in Bool.random(using: &generator) ? UInt8(ascii: "\n") : UInt8.random(in: 0...255, using: &generator) },
        ]
        for fill in fills {
            let bytes = (0..<(length + 3)).map(fill)
            for start in 0..<3 {
                let slice = bytes[start..<(start + length)]
                let counted = slice.withUnsafeBufferPointer { TextPosition.countNewlines($0) }
                #expect(counted == slice.count(where: { $0 == UInt8(ascii: "\n") }), "length \(length) from \(start)")
            }
        }
    }
}
