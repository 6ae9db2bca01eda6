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
                if case .character(let set) = program[pc], set.contains(scalar) {
                    add(pc + 1, to: &next, at: offset + 1)
                }
            }
            if !wholeString { add(0, to: &next, at: offset + 1) }
            swap(&current, &next)
            if current.isEmpty { return false }
        }
        return current.contains { program[$0] == .accept }
    }
}
