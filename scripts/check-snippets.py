#!/usr/bin/env python3
"""Compiles every Swift snippet of README.md and the DocC articles against the package.

Each snippet becomes the body of its own function in a scratch package (.build/snippets) that
depends on this one, after a prelude that declares what snippets take as given (a `User` type, a
`source`, …). A snippet that does not compile fails the check with its file and position. Package
manifest fragments (`.package(…)`) are not Swift code of a target: they are listed as skipped.
"""
import glob, os, re, subprocess, sys

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
files = ["README.md"] + sorted(glob.glob("Sources/*/*.docc/*.md"))
prelude = '''
import Foundation
import YAJL
import YAJLHTTP

struct User: Codable { let id: Int; let name: String }
struct Order: Decodable { let id: Int }
struct Meta: Codable { let version: Int }
struct Item: Decodable, Sendable { let id: Int }
func store(_ value: Any) throws {}
func save(_ value: Any) async throws {}
func handle(_ value: Any) {}
nonisolated(unsafe) let handler = JSONWritingHandler(writer: JSONWriter(to: MemoryOutputSink()))
let chunks: [[UInt8]] = []
let path = "data.json"
nonisolated(unsafe) let source = MemoryByteSource(Array("{}".utf8))
let byteStream = AsyncStream<[UInt8]> { $0.finish() }
nonisolated(unsafe) var meta: Meta?
nonisolated(unsafe) var users: [User] = []
'''
snippets, skipped = [], []
for name in files:
    text = open(os.path.join(root, name)).read()
    for match in re.finditer(r"```swift\n(.*?)```", text, re.S):
        line = text[: match.start()].count("\n") + 2
        body = match.group(1)
        if ".package(" in body or ".target(" in body:
            skipped.append(f"{name}:{line}")
            continue
        body = "\n".join(l for l in body.splitlines() if not l.startswith("import "))
        snippets.append((name, line, body))

out = os.path.join(root, ".build", "snippets")
os.makedirs(os.path.join(out, "Sources", "Snippets"), exist_ok=True)
with open(os.path.join(out, "Package.swift"), "w") as f:
    f.write(f'''// swift-tools-version:6.0
import PackageDescription
let package = Package(
    name: "Snippets",
    dependencies: [.package(path: "{root}")],
    targets: [.target(name: "Snippets", dependencies: [
        .product(name: "YAJL", package: "{os.path.basename(root)}"),
        .product(name: "YAJLHTTP", package: "{os.path.basename(root)}"),
    ])]
)
''')
with open(os.path.join(out, "Sources", "Snippets", "Snippets.swift"), "w") as f:
    f.write(prelude)
    for index, (name, line, body) in enumerate(snippets):
        f.write(f"\n// {name}:{line}\n@MainActor func snippet{index}() async throws {{\n{body}\n}}\n")
for where in skipped:
    print(f"snippets: skipped {where} (a Package.swift fragment, not target code)")
result = subprocess.run(["swift", "build", "--package-path", out], capture_output=True, text=True)
if result.returncode != 0:
    generated = open(os.path.join(out, "Sources", "Snippets", "Snippets.swift")).read().splitlines()
    for error in re.finditer(r"Snippets\.swift:(\d+):\d+: error: (.*)", result.stdout + result.stderr):
        at = int(error.group(1))
        origin = next((l for l in reversed(generated[:at]) if l.startswith("// ") and ".md:" in l), "// ?")
        print(f"snippets: {origin[3:]}: {error.group(2)}")
    print("snippets: a documented snippet does not compile")
    sys.exit(1)
print(f"snippets: {len(snippets)} snippets from {len(files)} files compile")
