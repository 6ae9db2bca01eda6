#!/usr/bin/env bash
# Builds the DocC archives of YAJL (with YAJLCore, which it re-exports) and YAJLHTTP with the
# toolchain's docc (no plugin can be fetched here) and fails on any warning, or on any public symbol
# without a doc comment.
#   symbol graphs: swift package dump-symbol-graph (public symbols)
#   archives:      .build/docs/YAJL.doccarchive, .build/docs/YAJLHTTP.doccarchive
#   snippets:      every Swift block of README.md and the articles compiles (scripts/check-snippets.py)
set -euo pipefail
cd "$(dirname "$0")/.."
out=.build/docs
rm -rf "$out"
mkdir -p "$out/symbols/YAJL" "$out/symbols/YAJLHTTP"
swift package dump-symbol-graph --skip-synthesized-members --minimum-access-level public > "$out/dump.log" 2>&1 \
  || { cat "$out/dump.log"; exit 1; }
graphs=$(sed -n 's/^Files written to //p' "$out/dump.log" | tail -1)
[ -d "$graphs" ] || { echo "docs: no symbol graphs found (see $out/dump.log)"; exit 1; }
cp "$graphs"/YAJLHTTP*.symbols.json "$out/symbols/YAJLHTTP/"
# `YAJL` is what users import: YAJLCore re-exported, plus what needs Foundation itself. Its archive
# documents both as one module: YAJLCore's graph and YAJL's extensions of it are renamed to YAJL.
python3 - "$graphs" "$out/symbols/YAJL" <<'PY'
import json, sys
graphs, target = sys.argv[1], sys.argv[2]
for source, name in [("YAJL", "YAJL"), ("YAJLCore", "YAJL-core"), ("YAJL@YAJLCore", "YAJL-extensions")]:
    graph = json.load(open(f"{graphs}/{source}.symbols.json"))
    graph["module"]["name"] = "YAJL"
    for symbol in graph["symbols"]:
        if "swiftExtension" in symbol:
            symbol["swiftExtension"]["extendedModule"] = "YAJL"
    json.dump(graph, open(f"{target}/{name}.symbols.json", "w"))
PY

# Every public symbol documented: the graphs carry each symbol's doc comment (inherited from a
# protocol requirement when the implementation has none).
python3 - "$out/symbols" <<'PY'
import json, glob, sys
missing = []
for path in sorted(glob.glob(sys.argv[1] + "/*/*.symbols.json")):
    for symbol in json.load(open(path))["symbols"]:
        if not symbol.get("docComment"):
            loc = symbol.get("location", {})
            missing.append(f'{loc.get("uri", "?").split("/Sources/")[-1]}:{loc.get("position", {}).get("line", 0) + 1}: '
                           f'{symbol["kind"]["displayName"].lower()} {".".join(symbol["pathComponents"])}')
for line in missing:
    print("docs: undocumented public symbol:", line)
if missing:
    sys.exit(f"docs: {len(missing)} public symbols have no doc comment")
print("docs: every public symbol is documented")
PY

for module in YAJL YAJLHTTP; do
  docc convert "Sources/$module/$module.docc" \
    --additional-symbol-graph-dir "$out/symbols/$module" \
    --fallback-display-name "$module" --fallback-bundle-identifier "org.swift-yajl.$module" \
    --output-path "$out/$module.doccarchive" --warnings-as-errors \
    --experimental-documentation-coverage --coverage-summary-level brief > "$out/$module.log" 2>&1 \
    || { cat "$out/$module.log"; echo "docs: docc failed for $module"; exit 1; }
  if grep -qE "warning:|error:" "$out/$module.log"; then
    cat "$out/$module.log"; echo "docs: docc reported problems for $module"; exit 1
  fi
  echo "docs: $out/$module.doccarchive"
done

# Every Swift snippet of the README and the articles compiles against the package as it is.
python3 scripts/check-snippets.py
