/// An I-Regexp (RFC 9485), the regular expressions of JSONPath's `match()` and `search()`,
/// compiled to a Thompson automaton: matching takes time linear in the string (times the size
/// of the pattern) whatever the pattern, so no document can make a filter hang.
struct IRegexp: Sendable, Hashable {
    /// One instruction of the automaton.
    private enum Instruction: Sendable, Hashable {
        case character(CharacterSet)
        case split(Int, Int)
        case jump(Int)
        /// `^` and `$`: zero-width, at the start or the end of the string.
        case atStart
        case atEnd
        case accept
    }

    /// A set of scalars: ranges and general categories, maybe complemented.
    struct CharacterSet: Sendable, Hashable {
        var ranges: [ClosedRange<UInt32>] = []
        var categoryNames: [(name: String, complemented: Bool)] = []
        var isComplemented = false

        static func == (a: Self, b: Self) -> Bool {
            a.ranges == b.ranges && a.isComplemented == b.isComplemented
                && a.categoryNames.map { "\($0.name)\($0.complemented)" }
                    == b.categoryNames.map { "\($0.name)\($0.complemented)" }
        }
        func hash(into hasher: inout Hasher) { hasher.combine(ranges) }

        func contains(_ scalar: Unicode.Scalar) -> Bool {
            var found = ranges.contains { $0.contains(scalar.value) }
            if !found && !categoryNames.isEmpty {
                let category = scalar.properties.generalCategory
                found = categoryNames.contains { Self.category($0.name)(category) != $0.complemented }
            }
            return found != isComplemented
        }

        /// The test for a category name of `\p{…}` (one or two letters).
        static func category(_ name: String) -> (Unicode.GeneralCategory) -> Bool {
            { category in
                let code = Self.code(category)
                return name.count == 1 ? code.hasPrefix(name) : code == name
            }
        }

        private static func code(_ category: Unicode.GeneralCategory) -> String {
            switch category {
            case .uppercaseLetter: "Lu"
            case .lowercaseLetter: "Ll"
            case .titlecaseLetter: "Lt"
            case .modifierLetter: "Lm"
            case .otherLetter: "Lo"
            case .nonspacingMark: "Mn"
            case .spacingMark: "Mc"
            case .enclosingMark: "Me"
            case .decimalNumber: "Nd"
            case .letterNumber: "Nl"
            case .otherNumber: "No"
            case .connectorPunctuation: "Pc"
            case .dashPunctuation: "Pd"
            case .openPunctuation: "Ps"
            case .closePunctuation: "Pe"
            case .initialPunctuation: "Pi"
            case .finalPunctuation: "Pf"
            case .otherPunctuation: "Po"
            case .mathSymbol: "Sm"
            case .currencySymbol: "Sc"
            case .modifierSymbol: "Sk"
            case .otherSymbol: "So"
            case .spaceSeparator: "Zs"
            case .lineSeparator: "Zl"
            case .paragraphSeparator: "Zp"
            case .control: "Cc"
            case .format: "Cf"
            case .surrogate: "Cs"
            case .privateUse: "Co"
            case .unassigned: "Cn"
            @unknown default: "Cn"
            }
        }
    }

    private let program: [Instruction]
    private let wholeString: Bool

    /// The largest automaton built (a pattern such as `a{1000}{1000}` is refused rather than
    /// expanded).
    static let maxProgramSize = 100_000

    /// Compiles `pattern`; `nil` when it is not a valid I-Regexp (or too large). With
    /// `wholeString`, ``matches(_:)`` tests the whole string (`match()`), else any substring
    /// (`search()`).
    init?(_ pattern: String, wholeString: Bool) {
        var compiler = Compiler(scalars: Array(pattern.unicodeScalars))
        guard let program = compiler.compile() else { return nil }
        self.program = program
        self.wholeString = wholeString
    }

    /// Whether the pattern matches `text` (whole, or a substring).
    ///
    /// `^` and `$` (literal characters in XSD, I-Regexp's model) are anchors here, as in the
    /// ECMAScript and PCRE mappings of RFC 9485 §5 that JSONPath implementations use.
    func matches(_ text: String) -> Bool {
        let scalars = Array(text.unicodeScalars)
        let count = program.count
        var current: [Int] = []
        var next: [Int] = []
        var mark = [Int](repeating: -1, count: count)
        var generation = 0

        func add(_ pc: Int, to list: inout [Int], at position: Int) {
            var stack = [pc]
            while let pc = stack.popLast() {
                guard mark[pc] != generation else { continue }
                mark[pc] = generation
                switch program[pc] {
                case .jump(let target): stack.append(target)
                case .split(let a, let b):
                    stack.append(b)
                    stack.append(a)
                case .atStart: if position == 0 { stack.append(pc + 1) }
                case .atEnd: if position == scalars.count { stack.append(pc + 1) }
                default: list.append(pc)
                }
            }
        }

        add(0, to: &current, at: 0)
        for (offset, scalar) in scalars.enumerated() {
            if !wholeString && current.contains(where: { program[$0] == .accept }) { return true }
            generation += 1
            next.removeAll(keepingCapacity: true)
            for pc in current {
                if case .character(let set) = program[pc], set.contains(scalar) { add(pc + 1, to: &next, at: offset + 1) }
            }
            if !wholeString { add(0, to: &next, at: offset + 1) }
            swap(&current, &next)
            if current.isEmpty { return false }
        }
        return current.contains { program[$0] == .accept }
    }

    /// RFC 9485's grammar, compiled straight into instructions.
    private struct Compiler {
        let scalars: [Unicode.Scalar]
        var position = 0
        var program: [Instruction] = []
        var depth = 0

        var current: Unicode.Scalar? { position < scalars.count ? scalars[position] : nil }

        mutating func compile() -> [Instruction]? {
            guard let expression = parseAlternation(), position == scalars.count else { return nil }
            var program: [Instruction] = []
            guard emit(expression, into: &program) else { return nil }
            program.append(.accept)
            return program
        }

        /// The pattern's tree, expanded into instructions only once parsing succeeded.
        indirect enum Node {
            case set(CharacterSet)
            case anchor(atStart: Bool)
            case sequence([Node])
            case alternation([Node])
            case repeated(Node, min: Int, max: Int?)
        }

        mutating func parseAlternation() -> Node? {
            depth += 1
            defer { depth -= 1 }
            guard depth < 100 else { return nil }
            var branches: [Node] = []
            while true {
                var pieces: [Node] = []
                while let c = current, c != "|", c != ")" {
                    guard let atom = parseAtom() else { return nil }
                    guard let piece = parseQuantifier(atom) else { return nil }
                    pieces.append(piece)
                }
                branches.append(.sequence(pieces))
                guard current == "|" else { break }
                position += 1
            }
            return branches.count == 1 ? branches[0] : .alternation(branches)
        }

        mutating func parseQuantifier(_ atom: Node) -> Node? {
            switch current {
            case "*":
                position += 1
                return .repeated(atom, min: 0, max: nil)
            case "+":
                position += 1
                return .repeated(atom, min: 1, max: nil)
            case "?":
                position += 1
                return .repeated(atom, min: 0, max: 1)
            case "{":
                position += 1
                guard let low = parseDigits() else { return nil }
                var high: Int? = low
                if current == "," {
                    position += 1
                    high = current == "}" ? nil : parseDigits()
                    if high == nil && current != "}" { return nil }
                }
                guard current == "}" else { return nil }
                position += 1
                if let high, high < low { return nil }
                return .repeated(atom, min: low, max: high)
            default:
                return atom
            }
        }

        mutating func parseDigits() -> Int? {
            var value = 0
            var any = false
            while let c = current, c.value >= 0x30 && c.value <= 0x39 {
                value = min(value * 10 + Int(c.value - 0x30), IRegexp.maxProgramSize + 1)
                any = true
                position += 1
            }
            return any ? value : nil
        }

        mutating func parseAtom() -> Node? {
            guard let c = current else { return nil }
            switch c {
            case "(":
                position += 1
                guard let inner = parseAlternation(), current == ")" else { return nil }
                position += 1
                return inner
            case ".":
                position += 1
                return .set(CharacterSet(ranges: [0x0A...0x0A, 0x0D...0x0D], isComplemented: true))
            case "^", "$":
                position += 1
                return .anchor(atStart: c == "^")
            case "[":
                return parseClassExpression().map(Node.set)
            case "\\":
                return parseEscape().map(Node.set)
            case ")", "*", "+", "?", "]", "{", "|", "}":
                return nil
            default:
                position += 1
                return .set(CharacterSet(ranges: [c.value...c.value]))
            }
        }

        /// After `\`: a single-character escape or a category `\p{…}` / `\P{…}`.
        mutating func parseEscape() -> CharacterSet? {
            position += 1  // \
            guard let c = current else { return nil }
            position += 1
            switch c {
            case "n": return CharacterSet(ranges: [0x0A...0x0A])
            case "r": return CharacterSet(ranges: [0x0D...0x0D])
            case "t": return CharacterSet(ranges: [0x09...0x09])
            case "(", ")", "*", "+", "-", ".", "?", "[", "\\", "]", "^", "{", "|", "}":
                return CharacterSet(ranges: [c.value...c.value])
            case "p", "P":
                guard current == "{" else { return nil }
                position += 1
                var name = ""
                while let l = current, l != "}" {
                    name.unicodeScalars.append(l)
                    position += 1
                }
                guard current == "}", Self.validCategories.contains(name) else { return nil }
                position += 1
                return CharacterSet(categoryNames: [(name, c == "P")])
            default:
                return nil
            }
        }

        static let validCategories: Set<String> = [
            "L", "Ll", "Lm", "Lo", "Lt", "Lu", "M", "Mc", "Me", "Mn", "N", "Nd", "Nl", "No",
            "P", "Pc", "Pd", "Pe", "Pf", "Pi", "Po", "Ps", "Z", "Zl", "Zp", "Zs",
            "S", "Sc", "Sk", "Sm", "So", "C", "Cc", "Cf", "Cn", "Co",
        ]

        /// `[…]` or `[^…]`.
        mutating func parseClassExpression() -> CharacterSet? {
            position += 1  // [
            var set = CharacterSet()
            if current == "^" {
                set.isComplemented = true
                position += 1
            }
            var first = true
            while let c = current, c != "]" {
                if c == "-" {
                    // Only first or last: `[-a]`, `[a-]`.
                    guard first || scalars.indices.contains(position + 1) && scalars[position + 1] == "]" else {
                        return nil
                    }
                    position += 1
                    set.ranges.append(0x2D...0x2D)
                    first = false
                    continue
                }
                first = false
                if c == "\\", position + 1 < scalars.count, scalars[position + 1] == "p" || scalars[position + 1] == "P" {
                    guard let category = parseEscape() else { return nil }
                    set.categoryNames += category.categoryNames
                    continue
                }
                guard let low = parseClassCharacter() else { return nil }
                if current == "-", position + 1 < scalars.count, scalars[position + 1] != "]" {
                    position += 1
                    guard let high = parseClassCharacter(), high >= low else { return nil }
                    set.ranges.append(low...high)
                } else {
                    set.ranges.append(low...low)
                }
            }
            guard current == "]" else { return nil }
            position += 1
            return set
        }

        /// `CCchar`: any scalar but `-`, `[`, `\`, `]`, or a single-character escape.
        mutating func parseClassCharacter() -> UInt32? {
            guard let c = current else { return nil }
            switch c {
            case "[", "]", "-": return nil
            case "\\":
                guard let set = parseEscape(), set.categoryNames.isEmpty, set.ranges.count == 1 else { return nil }
                return set.ranges[0].lowerBound
            default:
                position += 1
                return c.value
            }
        }

        /// Appends the instructions of `node`; `false` when the program would grow too large.
        func emit(_ node: Node, into program: inout [Instruction]) -> Bool {
            guard program.count < IRegexp.maxProgramSize else { return false }
            switch node {
            case .set(let set):
                program.append(.character(set))
            case .anchor(let atStart):
                program.append(atStart ? .atStart : .atEnd)
            case .sequence(let nodes):
                for node in nodes where !emit(node, into: &program) { return false }
            case .alternation(let branches):
                var jumps: [Int] = []
                for (index, branch) in branches.enumerated() {
                    if index < branches.count - 1 {
                        let split = program.count
                        program.append(.split(0, 0))
                        guard emit(branch, into: &program) else { return false }
                        jumps.append(program.count)
                        program.append(.jump(0))
                        program[split] = .split(split + 1, program.count)
                    } else {
                        guard emit(branch, into: &program) else { return false }
                    }
                }
                for jump in jumps { program[jump] = .jump(program.count) }
            case .repeated(let inner, let min, let max):
                for _ in 0..<min where !emit(inner, into: &program) { return false }
                if let max {
                    // Each optional copy: split(enter, skip-all).
                    var splits: [Int] = []
                    for _ in min..<max {
                        splits.append(program.count)
                        program.append(.split(0, 0))
                        guard emit(inner, into: &program) else { return false }
                    }
                    for split in splits { program[split] = .split(split + 1, program.count) }
                } else {
                    let loop = program.count
                    program.append(.split(0, 0))
                    guard emit(inner, into: &program) else { return false }
                    program.append(.jump(loop))
                    program[loop] = .split(loop + 1, program.count)
                }
            }
            return program.count <= IRegexp.maxProgramSize
        }
    }
}
