import Foundation
import Testing
import YAJL
import YAJLTestSupport

@testable import YAJLCore

/// `match()` and `search()` in bounded time, and never false because of a limit: steps counted
/// against the program's size times the string's length over generated patterns, answers compared
/// with Foundation's regular expressions, and patterns past the caps refused with an error.
@Suite("JSONPath: I-Regexp bounds")
struct IRegexpBoundsTests {
    typealias Random = NumberParsingTests.SplitMix

    /// A random I-Regexp over `a`, `b`, `c`: characters, classes, groups, alternations and every
    /// quantifier, nested at most `depth` deep.
    static func pattern(_ r: inout Random, depth: Int) -> String {
        var pieces: [String] = []
        for _ in 0..<Int.random(in: 1...3, using: &r) {
            var atom: String
            switch Int.random(in: 0..<6, using: &r) {
            case 0, 1: atom = ["a", "b", "c"].randomElement(using: &r)!
            case 2: atom = ["[ab]", "[^a]", "[a-c]", "[bc]"].randomElement(using: &r)!
            case 3 where depth > 0: atom = "(" + pattern(&r, depth: depth - 1) + ")"
            case 4 where depth > 0:
                atom = "(" + pattern(&r, depth: depth - 1) + "|" + pattern(&r, depth: depth - 1) + ")"
            default: atom = "a"
            }
            switch Int.random(in: 0..<8, using: &r) {
            case 0: atom += "*"
            case 1: atom += "+"
            case 2: atom += "?"
            case 3: atom += "{\(Int.random(in: 0...3, using: &r))}"
            case 4:
                let low = Int.random(in: 0...3, using: &r)
                atom += "{\(low),\(low + Int.random(in: 0...4, using: &r))}"
            case 5: atom += "{\(Int.random(in: 0...2, using: &r)),}"
            default: break
            }
            pieces.append(atom)
        }
        return pieces.joined()
    }

    static func text(_ r: inout Random, length: Int) -> String {
        String((0..<length).map { _ in ["a", "b", "c"].randomElement(using: &r)! as Character })
    }

    /// Foundation's answer for a pattern of this alphabet (where ICU and I-Regexp agree).
    static func foundation(_ pattern: String, _ text: String, whole: Bool) throws -> Bool {
        let regex = try NSRegularExpression(pattern: whole ? "^(?:\(pattern))$" : pattern)
        return regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil
    }

    @Test func generatedPatternsAnswerAsFoundationDoes() throws {
        var r = Random(state: 0x1E6E_9485)
        for _ in 0..<1_500 {
            let pattern = Self.pattern(&r, depth: 2)
            let text = Self.text(&r, length: Int.random(in: 0...12, using: &r))
            for whole in [true, false] {
                let compiled = try #require(IRegexp(pattern, wholeString: whole), "\(pattern)")
                let expected = try Self.foundation(pattern, text, whole: whole)
                #expect(
                    compiled.matches(text) == expected,
                    "\(whole ? "match" : "search")(\(text.debugDescription), \(pattern.debugDescription))"
                )
            }
        }
    }

    /// Steps never pass the program's size per scalar, whatever the pattern; and doubling the
    /// string at most doubles them (give or take the first positions).
    @Test func stepsAreLinearInTheString() throws {
        var r = Random(state: 0x5EA2C4)
        for _ in 0..<Sanitizer.scaled(300, underSanitizer: 100, "linear steps: patterns") {
            let pattern = Self.pattern(&r, depth: 3)
            for whole in [true, false] {
                let compiled = try #require(IRegexp(pattern, wholeString: whole))
                let size = compiled.program.count
                // Strings that keep the automaton busy: repeats of one letter or of all three.
                let unit = ["a", "ab", "abc"].randomElement(using: &r)!
                var counted: [Int] = []
                for length in [500, 1_000, 2_000] {
                    let text = String(repeating: unit, count: length / unit.count) + "x"
                    var steps = 0
                    _ = compiled.matches(text, steps: &steps)
                    let scalars = text.unicodeScalars.count
                    #expect(steps <= 2 * size * (scalars + 1), "\(pattern): \(steps) steps for \(scalars)")
                    counted.append(steps)
                }
                #expect(Double(counted[2]) <= 2.05 * Double(counted[1]) + Double(8 * size), "\(pattern): \(counted)")
                #expect(Double(counted[1]) <= 2.05 * Double(counted[0]) + Double(8 * size), "\(pattern): \(counted)")
            }
        }
    }

    /// The patterns of the report, and repetitions generated past the cap: refused when the
    /// query is parsed, with the limit in the message, never a filter that is quietly false.
    @Test func literalPatternsPastTheCapAreRefusedWhenParsed() {
        var r = Random(state: 0xCA9)
        var patterns = ["a{1,100000}", "(a|b){1,100000}", "(a|b){1,9000}x", "(ab){5001}", "(a{1000}){1000}"]
        for _ in 0..<40 {
            let inner = ["a", "[ab]", "(a|b)", "(ab|cd)", "(a?)"].randomElement(using: &r)!
            patterns.append(
                "\(inner){\(Int.random(in: 1...20, using: &r)),\(Int.random(in: 10_001...1_000_000, using: &r))}"
            )
        }
        patterns.append(String(repeating: "(", count: 101) + "a" + String(repeating: ")", count: 101))
        for pattern in patterns {
            for function in ["match", "search"] {
                let expression = "$[?\(function)(@, '\(pattern)')]"
                do {
                    _ = try JSONPathQuery(expression)
                    Issue.record("\(expression.prefix(60)) was accepted")
                } catch {
                    let message = error.description
                    #expect(
                        message.contains("\(IRegexp.maxProgramSize) instructions")
                            || message.contains("\(IRegexp.maxGroupDepth) deep"),
                        "\(message)"
                    )
                    #expect(error.position == "$[?\(function)(@, ".unicodeScalars.count, "\(message)")
                }
            }
        }
    }

    /// Patterns just under the caps are accepted and match correctly.
    @Test(arguments: [
        ("a{1,4000}", String(repeating: "a", count: 4_000), true),
        ("a{1,4000}", String(repeating: "a", count: 4_001), false),
        ("(a|b){1,1500}x", String(repeating: "ab", count: 700) + "x", true),
        (String(repeating: "(", count: 100) + "a" + String(repeating: ")", count: 100), "a", true),
    ])
    func patternsUnderTheCapsMatch(pattern: String, text: String, matches: Bool) throws {
        let document = "[\(String(reflecting: text))]"
        let selected = try JSONPathTests.select("$[?match(@, '\(pattern)')]", in: document)
        #expect(selected.count == (matches ? 1 : 0), "\(pattern)")
    }

    /// A pattern taken from the document that is past the cap stops the read with an error
    /// naming the pattern, the value and the limit.
    @Test(arguments: [
        "a{1,100000}", "(a|b){1,20000}", String(repeating: "(", count: 150) + "a" + String(repeating: ")", count: 150),
    ])
    func documentPatternsPastTheCapStopTheRead(pattern: String) throws {
        let document = #"[{"s": "a", "p": "a"}, {"s": "a", "p": "\#(pattern)"}]"#
        for function in ["match", "search"] {
            do {
                let selected = try JSONPathTests.select("$[?\(function)(@.s, @.p)]", in: document)
                Issue.record("\(function) selected \(selected) with \(pattern.prefix(20))")
            } catch let error as JSONPathPatternError {
                #expect(error.path == JSONPath([.index(1)]), "\(error)")
                #expect(error.pattern == pattern)
                #expect(
                    error.description.contains("$[1]") && error.description.contains("cannot be matched"),
                    "\(error)"
                )
            }
        }
        // A pattern that is merely invalid stays false, as RFC 9535 says.
        let invalid = #"[{"s": "a", "p": "a{2,1}"}, {"s": "a", "p": "a"}]"#
        #expect(try JSONPathTests.select("$[?match(@.s, @.p)]", in: invalid).count == 1)
    }
}
