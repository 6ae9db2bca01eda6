import Testing
@testable import YAJL

final class Rec: JSONEventHandler {
    var out: [String] = []
    func startObject(context: JSONEventContext) throws { out.append("{ \(context.path!) d=\(context.depth) @\(context.byteOffset)") }
    func endObject(context: JSONEventContext) throws { out.append("} \(context.path!)") }
    func startArray(context: JSONEventContext) throws { out.append("[ \(context.path!)") }
    func endArray(context: JSONEventContext) throws { out.append("] \(context.path!)") }
    func key(_ key: JSONStringView, context: JSONEventContext) throws { out.append("k \(key.string) \(context.path!)") }
    func string(_ value: JSONStringView, context: JSONEventContext) throws { out.append("s \(value.string) \(context.path!)") }
    func number(_ value: JSONNumberView, context: JSONEventContext) throws { out.append("n \(value.text) \(value.value) \(context.path!)") }
}

@Test func spike() throws {
    let r = Rec()
    let p = JSONParser(handler: r)
    try p.parse(#"{"a": [1, 2.5, {"b c": "x"}], "d": 1e400, "e": -0}"#)
    try p.finish()
    print(r.out.joined(separator: "\n"))
    for bad in ["[1,2", "[1 2]", "{\"a\":\n tru}", "[\"\u{01}\"]", "[1.]", "{\"a\":1}x", "[\"\\x\"]", "[/*c*/1]", "", "  ", "{\"k\": [1, [2, [3"] {
        let p2 = JSONParser(handler: Rec())
        do { try p2.parse(bad); try p2.finish(); print("OK?", bad) } catch let e as JSONParseError { print(bad.debugDescription, "=>", e.kind, "|", e.detailedDescription) }
    }
}
@Test func num() {
    for t in ["1e400", "2.5e3", "1e23", "123456789012345678901234567890"] {
        print(t, JSONNumber(t)!.value)
    }
}
