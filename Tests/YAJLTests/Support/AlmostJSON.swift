/// Documents that are JSON most of the time and near misses otherwise, for differential tests of
/// validation: every token has a small chance of a typical mistake (a bad escape, a malformed
/// number, a cut literal, a stray comma, a control character, invalid UTF-8), and white space
/// includes YAJL's vertical tab and form feed.
enum AlmostJSON {
    static func value(_ random: inout some RandomNumberGenerator, depth: Int) -> [UInt8] {
        let roll = Int.random(in: 0..<100, using: &random)
        let nested = depth < 5
        switch roll {
        case 0..<20 where nested: return container(&random, depth: depth, object: false)
        case 20..<40 where nested: return container(&random, depth: depth, object: true)
        case 0..<55: return number(&random)
        case 55..<80: return string(&random)
        case 80..<98: return literal(&random)
        default: return Array(oneOf(["", "x", "/", "+", "'a'", "{", "]"], &random).utf8)
        }
    }

    static func container(_ random: inout some RandomNumberGenerator, depth: Int, object: Bool) -> [UInt8] {
        var out: [UInt8] = [object ? UInt8(ascii: "{") : UInt8(ascii: "[")]
        let count = Int.random(in: 0..<5, using: &random)
        for index in 0..<count {
            out += space(&random)
            if index > 0 || chance(1, in: 60, &random) { out += [UInt8(ascii: ",")] + space(&random) }
            if object {
                out += chance(1, in: 40, &random) ? number(&random) : string(&random)
                out += space(&random)
                if !chance(1, in: 60, &random) { out += [UInt8(ascii: ":")] }
                out += space(&random)
            }
            out += value(&random, depth: depth + 1)
        }
        if chance(1, in: 50, &random) { out += [UInt8(ascii: ",")] }
        out += space(&random)
        if !chance(1, in: 60, &random) { out += [object ? UInt8(ascii: "}") : UInt8(ascii: "]")] }
        return out
    }

    static func number(_ random: inout some RandomNumberGenerator) -> [UInt8] {
        var text = chance(1, in: 3, &random) ? "-" : ""
        text += chance(1, in: 4, &random) ? "0" : String(Int.random(in: 1...999_999, using: &random))
        if chance(1, in: 2, &random) { text += "." + String(Int.random(in: 0...99_999, using: &random)) }
        if chance(1, in: 3, &random) {
            text +=
                oneOf(["e", "E"], &random) + oneOf(["", "+", "-"], &random)
                + String(Int.random(in: 0...400, using: &random))
        }
        if chance(1, in: 15, &random) {
            text = oneOf(
                ["01", "-", "1.", ".5", "+1", "1e", "1e+", "-x", "1.5.2", "0x10", "1E5e", "00", "-.1"],
                &random
            )
        }
        return Array(text.utf8)
    }

    static func string(_ random: inout some RandomNumberGenerator) -> [UInt8] {
        var out: [UInt8] = [UInt8(ascii: "\"")]
        for _ in 0..<Int.random(in: 0..<12, using: &random) {
            switch Int.random(in: 0..<40, using: &random) {
            case 0: out += Array(oneOf(["\\n", "\\\"", "\\\\", "\\/", "\\b", "\\f", "\\r", "\\t"], &random).utf8)
            case 1: out += Array(oneOf(["\\u00e9", "\\uD83D\\uDE00", "\\u12aF", "\\ud800", "\\uDC00x"], &random).utf8)
            case 2: out += Array(oneOf(["\\a", "\\u12G4", "\\u1", "\\x41", "\\U0041", "\\"], &random).utf8)
            case 3: out += [UInt8.random(in: 0..<0x20, using: &random)]
            case 4: out += Array(oneOf(["é", "€", "😀", "\u{7F}"], &random).utf8)
            case 5:
                out += oneOf(
                    [[0xC0, 0xAF], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0x80], [0xE2, 0x82]],
                    &random
                )
            default:
                out += [UInt8.random(in: 0x20...0x7E, using: &random)].filter {
                    $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\")
                }
            }
        }
        if !chance(1, in: 40, &random) { out += [UInt8(ascii: "\"")] }
        return out
    }

    static func literal(_ random: inout some RandomNumberGenerator) -> [UInt8] {
        let text = oneOf(["true", "false", "null"], &random)
        guard chance(1, in: 10, &random) else { return Array(text.utf8) }
        return Array(oneOf(["tru", "fals", "nul", "nulll", "True", "nUll", "truefalse", "t"], &random).utf8)
    }

    /// White space, mostly YAJL's (space, tab, line feed, carriage return, vertical tab, form
    /// feed), rarely a byte that is not white space in JSON.
    static func space(_ random: inout some RandomNumberGenerator) -> [UInt8] {
        var out: [UInt8] = []
        for _ in 0..<Int.random(in: 0..<3, using: &random) {
            out.append(oneOf([0x20, 0x20, 0x0A, 0x09, 0x0D, 0x0B, 0x0C], &random))
        }
        if chance(1, in: 300, &random) { out.append(oneOf([0x00, 0xA0, 0x1F, 0x85], &random)) }
        return out
    }

    /// Replaces, inserts or deletes a few bytes, or cuts the document short.
    static func mutate(_ document: inout [UInt8], _ random: inout some RandomNumberGenerator) {
        let interesting: [UInt8] = Array("{}[],:\"\\-+.0123456789eEtfnu \n".utf8) + [0x0B, 0x00, 0x80, 0xFF]
        for _ in 0..<Int.random(in: 1...3, using: &random) {
            guard !document.isEmpty else { return }
            let at = Int.random(in: 0..<document.count, using: &random)
            switch Int.random(in: 0..<4, using: &random) {
            case 0: document[at] = oneOf(interesting, &random)
            case 1: document.insert(oneOf(interesting, &random), at: at)
            case 2: document.remove(at: at)
            default: document.removeSubrange(at...)
            }
        }
    }

    static func chance(_ numerator: Int, in denominator: Int, _ random: inout some RandomNumberGenerator) -> Bool {
        Int.random(in: 0..<denominator, using: &random) < numerator
    }

    static func oneOf<T>(_ choices: [T], _ random: inout some RandomNumberGenerator) -> T {
        choices[Int.random(in: 0..<choices.count, using: &random)]
    }
}
