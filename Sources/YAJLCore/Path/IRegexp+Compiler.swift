extension IRegexp {
    /// RFC 9485's grammar, compiled straight into instructions.
    struct Compiler {
        let scalars: [Unicode.Scalar]
        var position = 0
        var program: [Instruction] = []
        var depth = 0
        /// Set when the groups nest deeper than ``IRegexp/maxGroupDepth``.
        var tooDeep = false

        var current: Unicode.Scalar? { position < scalars.count ? scalars[position] : nil }

        /// Why a pattern has no program.
        enum Failure: Error { case invalid, tooLarge, tooDeep }

        mutating func compile() -> Result<[Instruction], Failure> {
            guard let expression = parseAlternation(), position == scalars.count else {
                return .failure(tooDeep ? .tooDeep : .invalid)
            }
            var program: [Instruction] = []
            guard emit(expression, into: &program), program.count < IRegexp.maxProgramSize else {
                return .failure(.tooLarge)
            }
            program.append(.accept)
            return .success(program)
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
            guard depth <= IRegexp.maxGroupDepth + 1 else {  // the pattern itself, then its groups
                tooDeep = true
                return nil
            }
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
                if c == "\\", position + 1 < scalars.count, scalars[position + 1] == "p" || scalars[position + 1] == "P"
                {
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
