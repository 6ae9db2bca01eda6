/// An I-Regexp (RFC 9485), the regular expressions of JSONPath's `match()` and `search()`,
/// compiled to a Thompson automaton: matching takes time linear in the string (times the size
/// of the pattern) whatever the pattern, so no document can make a filter hang.
struct IRegexp: Sendable, Hashable {
    /// One instruction of the automaton.
    enum Instruction: Sendable, Hashable {
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

    /// The instructions, as compiled (what equality compares).
    let program: [Instruction]
    private let wholeString: Bool
    /// The program flattened for the matching loop: an opcode and two operands per instruction,
    /// and for each `character` instruction a bitmap of the ASCII scalars it takes.
    private let opcodes: [Opcode]
    private let operands: [(Int32, Int32)]
    private let asciiMasks: [(UInt64, UInt64)]

    private enum Opcode: UInt8 { case character, split, jump, atStart, atEnd, accept }

    /// The largest automaton built, in instructions. Matching costs at most this many steps per
    /// scalar of the string; a larger pattern is refused when the query is parsed (or, for a
    /// pattern read from the document, when it is evaluated), never evaluated to false.
    static let maxProgramSize = 10_000
    /// The deepest nesting of groups compiled (the compiler recurses once per group).
    static let maxGroupDepth = 100

    /// What compiling a pattern gives.
    enum Compiled {
        case valid(IRegexp)
        /// Not an I-Regexp: `match()` and `search()` are false (RFC 9535 §2.4.6, §2.4.7).
        case invalid
        /// An I-Regexp whose automaton would pass ``maxProgramSize`` instructions, or whose
        /// groups nest deeper than ``maxGroupDepth``: the reason, in words.
        case tooLarge(String)
    }

    /// Compiles `pattern`. With `wholeString`, ``matches(_:)`` tests the whole string
    /// (`match()`), else any substring (`search()`).
    static func compile(_ pattern: String, wholeString: Bool) -> Compiled {
        var compiler = Compiler(scalars: Array(pattern.unicodeScalars))
        switch compiler.compile() {
        case .success(let program): return .valid(IRegexp(program: program, wholeString: wholeString))
        case .failure(.invalid): return .invalid
        case .failure(.tooLarge):
            return .tooLarge(
                "the pattern compiles to more than \(maxProgramSize) instructions (the limit of I-Regexp "
                    + "matching, which takes up to that many steps per character): use smaller repetition counts"
            )
        case .failure(.tooDeep):
            return .tooLarge(
                "the pattern nests groups more than \(maxGroupDepth) deep (the limit of I-Regexp compiling)"
            )
        }
    }

    /// Compiles `pattern`; `nil` when it is not a valid I-Regexp or too large.
    init?(_ pattern: String, wholeString: Bool) {
        guard case .valid(let compiled) = Self.compile(pattern, wholeString: wholeString) else { return nil }
        self = compiled
    }

    private init(program: [Instruction], wholeString: Bool) {
        self.program = program
        self.wholeString = wholeString
        var opcodes: [Opcode] = []
        var operands: [(Int32, Int32)] = []
        var masks: [(UInt64, UInt64)] = []
        for instruction in program {
            var mask: (UInt64, UInt64) = (0, 0)
            switch instruction {
            case .character(let set):
                opcodes.append(.character)
                operands.append((0, 0))
                for scalar in 0..<128 where set.contains(Unicode.Scalar(UInt8(scalar))) {
                    if scalar < 64 { mask.0 |= 1 << UInt64(scalar) } else { mask.1 |= 1 << UInt64(scalar - 64) }
                }
            case .split(let a, let b):
                opcodes.append(.split)
                operands.append((Int32(a), Int32(b)))
            case .jump(let target):
                opcodes.append(.jump)
                operands.append((Int32(target), 0))
            case .atStart:
                opcodes.append(.atStart)
                operands.append((0, 0))
            case .atEnd:
                opcodes.append(.atEnd)
                operands.append((0, 0))
            case .accept:
                opcodes.append(.accept)
                operands.append((0, 0))
            }
            masks.append(mask)
        }
        self.opcodes = opcodes
        self.operands = operands
        self.asciiMasks = masks
    }

    static func == (a: Self, b: Self) -> Bool { a.program == b.program && a.wholeString == b.wholeString }
    func hash(into hasher: inout Hasher) {
        hasher.combine(program)
        hasher.combine(wholeString)
    }

    /// Whether the pattern matches `text` (whole, or a substring): a Pike VM, which keeps each
    /// instruction at most once per position, so the time is at most the program's size times
    /// the string's length, whatever the pattern.
    ///
    /// `^` and `$` (literal characters in XSD, I-Regexp's model) are anchors here, as in the
    /// ECMAScript and PCRE mappings of RFC 9485 §5 that JSONPath implementations use.
    func matches(_ text: String) -> Bool {
        var steps = 0
        return matches(text, steps: &steps)
    }

    /// ``matches(_:)``, adding to `steps` one for each instruction visited (what the tests
    /// compare with the program's size times the string's length).
    func matches(_ text: String, steps: inout Int) -> Bool {
        let scalars = Array(text.unicodeScalars)
        let count = program.count
        var current: [Int32] = []
        var next: [Int32] = []
        current.reserveCapacity(count)
        next.reserveCapacity(count)
        var mark = [Int](repeating: -1, count: count)
        var stack: [Int32] = []
        var generation = 0
        var accepted = false

        // Follows the zero-width instructions from `pc`; the character and accept ones reached
        // go to `list`.
        func add(_ pc: Int32, to list: inout [Int32], at position: Int) {
            stack.append(pc)
            while let pc = stack.popLast() {
                let index = Int(pc)
                guard mark[index] != generation else { continue }
                mark[index] = generation
                steps += 1
                switch opcodes[index] {
                case .jump: stack.append(operands[index].0)
                case .split:
                    stack.append(operands[index].1)
                    stack.append(operands[index].0)
                case .atStart: if position == 0 { stack.append(pc + 1) }
                case .atEnd: if position == scalars.count { stack.append(pc + 1) }
                case .accept: accepted = true
                case .character: list.append(pc)
                }
            }
        }

        add(0, to: &current, at: 0)
        for (offset, scalar) in scalars.enumerated() {
            if !wholeString && accepted { return true }
            accepted = false
            generation += 1
            next.removeAll(keepingCapacity: true)
            let value = scalar.value
            steps += current.count
            for pc in current {
                let index = Int(pc)
                let taken: Bool
                if value < 64 {
                    taken = asciiMasks[index].0 & (1 << UInt64(value)) != 0
                } else if value < 128 {
                    taken = asciiMasks[index].1 & (1 << UInt64(value - 64)) != 0
                } else if case .character(let set) = program[index] {
                    taken = set.contains(scalar)
                } else {
                    taken = false
                }
                if taken { add(pc + 1, to: &next, at: offset + 1) }
            }
            if !wholeString { add(0, to: &next, at: offset + 1) }
            swap(&current, &next)
            if current.isEmpty && !accepted { return false }
        }
        return accepted
    }
}
