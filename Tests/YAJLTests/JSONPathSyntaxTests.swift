import Testing
import YAJL

@testable import YAJLCore

/// RFC 9535's grammar, exactly: what is accepted, what is refused, and where the error points.
@Suite("JSONPath: syntax")
struct JSONPathSyntaxTests {
    @Test(arguments: [
        "$", "$.a", "$.☺", "$._", "$.true", "$.null", "$.a1", "$..a", "$..*", "$..[0]", "$.*", "$[*]",
        "$ .a", "$\n.a", "$\t['a']", "$['a'] ['b']", "$['a'] \r\n['b']", "$[ 'a' ]", "$['a' , 'b']",
        "$[0]", "$[-1]", "$[9007199254740991]", "$[-9007199254740991]", "$[0,1]", "$[*,1]", "$['a',1]",
        "$[1:3]", "$[:]", "$[::]", "$[::-1]", "$[1 :5: 2]", "$[-5:7]", "$[1:10:113667776004]",
        #"$["\""]"#, #"$['\'']"#, #"$["'"]"#, #"$['"']"#, #"$['\\']"#, #"$['\/']"#, #"$['\b\f\n\r\t']"#,
        #"$['\u263A']"#, #"$['\u263a']"#, #"$['\uD834\uDD1E']"#, "$[' ']", "$['\u{7F}']",
        "$[?@.a]", "$[? @.a]", "$[?\n(@.a)\n]", "$[?@.a==1]", "$[?@.a == -0]", "$[?@.a==1.5e3]", "$[?@.a==1E-3]",
        "$[?@.a=='b']", #"$[?@.a=="b"]"#, "$[?@.a==true]", "$[?@.a==null]", "$[?@.a==@.b]", "$[?@.a==$.b]",
        "$[?!@.a]", "$[?!(@.a==1)]", "$[?@.a&&@.b||@.c]", "$[?(@.a||@.b)&&@.c]", "$[?@[?@>1]]", "$[?@.a,?@.b]",
        "$[?$]", "$[?@]", "$[?@..a]", "$[?@.*]", "$[?length(@)<3]", "$[?length(@.a)==1]", "$[?length('ab')==2]",
        "$[?count(@.*)==1]", "$[?count(@..*)>2]", "$[?count( @.* )==1]", "$[?match(@.a, 'a.*')]",
        "$[?search(@ ,'[a-z]+')]", "$[?value(@..c)=='red']", "$[?length(value(@.a))==1]",
        "$[?match(@, $.regex)]", "$..[?length(@)==length($ [0] .a)]", "$[?@.a<'c']", "$[?@.a>=@.b]",
        "$[1, ?@.a=='b', 1:]", "$[?count(@[:,?@!=-1,2])==1]",
    ])
    func validQueriesAreAccepted(expression: String) {
        #expect(throws: Never.self, "\(expression)") { try JSONPathQuery(expression) }
    }

    /// (expression, position of the error in Unicode scalars, part of the message).
    @Test(arguments: [
        (" $", 0, "white space before '$'"),
        ("$ ", 1, "white space at the end"),
        ("$.&", 2, "expected a name or '*'"),
        ("$.1", 2, "expected a name or '*'"),
        ("$. a", 2, "expected a name or '*'"),
        ("$.. a", 3, "expected a name, '*' or '['"),
        ("$..", 3, "expected a name, '*' or '['"),
        ("$[]", 2, "expected a selector"),
        ("$[0 2]", 4, "expected ',' or ']'"),
        ("$[01]", 2, "leading zeros"),
        ("$[-01]", 2, "leading zeros"),
        ("$[-0]", 2, "'-0'"),
        ("$[+1]", 2, "expected a selector"),
        ("$[1.0]", 3, "expected ',' or ']'"),
        ("$[9007199254740992]", 2, "out of range"),
        ("$[-9007199254740992]", 2, "out of range"),
        ("$[1:2:3:4]", 7, "expected ',' or ']'"),
        ("$[1:2:a]", 6, "expected ',' or ']'"),
        ("$['\u{0}']", 3, "control character"),
        ("$['\u{1F}']", 3, "control character"),
        ("$['\n']", 3, "control character"),
        (#"$["\'"]"#, 3, "only the enclosing quote"),
        (#"$['\"']"#, 3, "only the enclosing quote"),
        ("$[''']", 4, "expected ',' or ']'"),
        (#"$['\']"#, 6, "unterminated string"),
        (#"$['\q']"#, 3, "invalid escape"),
        (#"$['\uD800']"#, 3, "high surrogate"),
        (#"$['\uDC00']"#, 3, "low surrogate"),
        (#"$['\uD800\u0041']"#, 9, "expected a low surrogate"),
        (#"$['\u12G4']"#, 7, "hexadecimal"),
        ("$[?@.a==01]", 8, "leading zeros"),
        ("$[?@.a==1.]", 10, "expected a digit after '.'"),
        ("$[?@.a==.1]", 8, "expected a query"),
        ("$[?@.a==True]", 8, "expected a query"),
        ("$[?true]", 3, "a literal is not a test"),
        ("$[?1==1 && 2]", 11, "a literal is not a test"),
        ("$[?@.*==1]", 3, "at most one node"),
        ("$[?@..a==0]", 3, "at most one node"),
        ("$[?@[0, 0]==42]", 3, "at most one node"),
        ("$[?$[0:0]==42]", 3, "at most one node"),
        ("$[?(@.a)==1]", 8, "expected ',' or ']'"),
        ("$[?!@.a==1]", 7, "expected ',' or ']'"),
        ("$[?foo(@.a)]", 3, "unknown function 'foo'"),
        ("$[?LENGTH(@)==1]", 3, "expected a query"),
        ("$[?count (@.*)==1]", 8, "followed directly by '('"),
        ("$[?count(1)>2]", 9, "takes a query"),
        ("$[?count()==1]", 3, "takes 1 argument, got 0"),
        ("$[?count(@.a,@.b)==1]", 3, "takes 1 argument, got 2"),
        ("$[?count(@..*)]", 3, "gives a value, not a test"),
        ("$[?length(@.*)<3]", 10, "at most one node"),
        ("$[?length(@.a)]", 3, "gives a value, not a test"),
        ("$[?value(@.a)]", 3, "gives a value, not a test"),
        ("$[?match(@.a, 'a')==true]", 3, "is a test"),
        ("$[?match(@.a)]", 3, "takes 2 arguments, got 1"),
        ("$[?length(match(@, 'a'))==1]", 10, "takes a value"),
        ("$[?@.a", 6, "expected ',' or ']'"),
        ("$[?(@.a]", 7, "expected ')'"),
    ])
    func invalidQueriesAreRefusedAtTheOffendingCharacter(expression: String, position: Int, message: String) {
        do {
            _ = try JSONPathQuery(expression)
            Issue.record("\(expression.debugDescription) was accepted")
        } catch {
            #expect(error.position == position, "\(expression.debugDescription): \(error)")
            #expect(error.message.contains(message), "\(expression.debugDescription): \(error.message)")
        }
    }

    @Test func errorsNeverPrintRawControlCharacters() throws {
        let error = try #require(throws: JSONPathSyntaxError.self) { try JSONPathQuery("$['a\u{1}b']") }
        #expect(!error.description.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" })
        #expect(error.description.contains(#"$['a\u0001b']"#))
        // The caret stays under the offending character once it is escaped (`\u0001` is 6 wide).
        let newline = try #require(throws: JSONPathSyntaxError.self) { try JSONPathQuery("$\n.a x") }
        let lines = newline.description.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 3)
        #expect(lines[1] == #"    $\n.a x"#)
        #expect(lines[2] == "    " + String(repeating: " ", count: 6) + "^")
    }

    @Test func numbersCompareExactly() throws {
        let cases: [(String, String, Bool)] = [
            ("1", "1.0", true), ("1", "10e-1", true), ("-0", "0", true), ("100", "1e2", true),
            ("123456789012345678901234567890", "123456789012345678901234567891", false),
            ("1e400", "1e401", false), ("0.1", "0.10", true),
        ]
        for (a, b, equal) in cases {
            let x = try #require(ExactNumber(text: Array(a.utf8)))
            let y = try #require(ExactNumber(text: Array(b.utf8)))
            #expect((x == y) == equal, "\(a) == \(b)")
        }
        let ordered = [
            "-1e400", "-2", "-1.5", "-0.001", "0", "1e-400", "0.5", "1", "1.0000000000000000001", "3", "1e400",
        ]
        let numbers = ordered.map { ExactNumber(text: Array($0.utf8))! }
        for i in numbers.indices.dropLast() {
            #expect(numbers[i] < numbers[i + 1], "\(ordered[i]) < \(ordered[i + 1])")
        }
    }

    /// (pattern, text, match(), search()).
    @Test(arguments: [
        ("a.*", "ab", true, true), ("a.*", "bab", false, true), ("a.b", "a\u{10101}b", true, true),
        ("a.b", "a\nb", false, false), ("a.b", "a\u{2028}b", true, true), ("[jk]", "kilo", false, true),
        ("\\p{Lu}", "Ж", true, true), ("\\P{Lu}", "ж", true, true), ("\\p{L}+", "жЖ1", false, true),
        ("[a-c]{2,3}", "abc", true, true), ("[a-c]{2,3}", "abcd", false, true), ("x{2}", "xx", true, true),
        ("(ab|cd)+", "abcdab", true, true), ("[^a]", "b", true, true), ("[-a]", "-", true, true),
        ("a\\.b", "a.b", true, true), ("a\\.b", "axb", false, false), ("^ab", "abc", false, true),
        ("b$", "ab", false, true), ("", "", true, true), ("", "x", false, true),
    ])
    func iRegexpMatching(pattern: String, text: String, matches: Bool, searches: Bool) throws {
        let whole = try #require(IRegexp(pattern, wholeString: true), "\(pattern)")
        let part = try #require(IRegexp(pattern, wholeString: false), "\(pattern)")
        #expect(whole.matches(text) == matches, "match(\(text.debugDescription), \(pattern))")
        #expect(part.matches(text) == searches, "search(\(text.debugDescription), \(pattern))")
    }

    @Test(arguments: ["(", "a)", "[a", "a{2,1}", "\\d", "\\w", "\\p{Xx}", "a**", "[b-a]", "a{1000000}", "(?:a)"])
    func invalidIRegexpsAreRefused(pattern: String) {
        #expect(IRegexp(pattern, wholeString: true) == nil, "\(pattern)")
    }

    @Test func hostilePatternsAreAnsweredWithoutBacktracking() throws {
        // (a*)*b on 100 000 a's: a backtracking engine would not finish; an automaton walks the
        // string once (this test would hang, not fail, if it regressed).
        let regexp = try #require(IRegexp("(a*)*b", wholeString: true))
        #expect(!regexp.matches(String(repeating: "a", count: 100_000)))
        #expect(regexp.matches(String(repeating: "a", count: 100_000) + "b"))
    }
}
