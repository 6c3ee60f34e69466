#!/usr/bin/env bash
# Integration test of the example JS shapers (examples/plugins/*.js) through the CLI.
#
#   tests/examples/run_examples.sh PATH/TO/plugline
#   ISOLATION=process tests/examples/run_examples.sh PATH/TO/plugline
#
# Makes a temporary PLUGLINE_HOME whose plugins/ holds the three examples, checks that
# `plugline plugins --json` lists them without a load error, then feeds every fixture under
# tests/fixtures/plugins/<plugin>/ to
#   plugline shape --command "<its command>" --exit-code <its exit code> --json < NAME.out
# and checks that the example won (`shaper` is the plugin's meta.name), that nothing fell
# back (`fallback` is null) and that every must_keep string is in `summary`.
# Exits 0 when every check passed; prints one line per fixture and a closing count line.
set -euo pipefail
shopt -s nullglob

PLUGLINE=${1:?usage: $0 PATH/TO/plugline}
PLUGLINE=$(cd "$(dirname "$PLUGLINE")" && pwd)/$(basename "$PLUGLINE")
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
PLUGINS=(prisma ansible terraform)

TMP=$(mktemp -d)
# Commands start a server for this home when a JS plugin is enabled; it goes with the home.
# Once stop returns, the server writes nothing more into the home.
trap '"$PLUGLINE" server stop >/dev/null 2>&1; rm -rf "$TMP"' EXIT
export PLUGLINE_HOME=$TMP/home
mkdir -p "$PLUGLINE_HOME/plugins" "$TMP/work"
for p in "${PLUGINS[@]}"; do cp "$ROOT/examples/plugins/$p.js" "$PLUGLINE_HOME/plugins/"; done
# ISOLATION=process runs the plugins in worker processes (plugins.js.isolation).
if [ -n "${ISOLATION:-}" ]; then
  printf 'plugins:\n  js:\n    isolation: %s\n' "$ISOLATION" > "$PLUGLINE_HOME/config.yaml"
fi
# An empty working directory: no project .plugline/plugins/ is picked up.
cd "$TMP/work"

passed=0
failed=0
fail() { echo "FAIL $*"; failed=$((failed + 1)); }

# --- the listing ---------------------------------------------------------------------------
if ! "$PLUGLINE" plugins --json > "$TMP/plugins.json" 2> "$TMP/plugins.err"; then
  fail "plugline plugins --json exited non-zero: $(head -c 300 "$TMP/plugins.err")"
else
  for p in "${PLUGINS[@]}"; do
    if python3 - "$TMP/plugins.json" "$p" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
name = sys.argv[2]
found = []
def walk(x):
    if isinstance(x, dict):
        if name in (x.get("id"), x.get("name")):
            found.append(x)
        for v in x.values():
            walk(v)
    elif isinstance(x, list):
        for v in x:
            walk(v)
walk(doc)
if not found:
    sys.exit(f"{name}: not listed")
entry = found[0]
# {"plugins": [{"id", "kind", "state", "reason", "path", ...}]}: a broken plugin has a
# state other than "enabled" and the reason it does not run.
if entry.get("state") not in (None, "enabled"):
    sys.exit(f"{name}: state {entry.get('state')!r}, reason {entry.get('reason')!r}")
for key in ("reason", "error"):
    if entry.get(key):
        sys.exit(f"{name}: {key}: {entry.get(key)}")
PY
    then
      echo "ok   plugins --json lists $p"
      passed=$((passed + 1))
    else
      fail "plugins --json: $p (see $(python3 -c 'import json,sys; print(json.dumps(json.load(open(sys.argv[1])))[:400])' "$TMP/plugins.json" 2>/dev/null || head -c 400 "$TMP/plugins.json"))"
    fi
  done
fi

# --- every fixture -------------------------------------------------------------------------
for p in "${PLUGINS[@]}"; do
  for meta in "$ROOT"/tests/fixtures/plugins/"$p"/*.json; do
    name=$(basename "$meta" .json)
    out=${meta%.json}.out
    command=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["command"])' "$meta")
    exit_code=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["exit_code"])' "$meta")
    rc=0
    "$PLUGLINE" shape --command "$command" --exit-code "$exit_code" --json < "$out" \
      > "$TMP/result.json" 2> "$TMP/result.err" || rc=$?
    if ! verdict=$(python3 - "$TMP/result.json" "$meta" "$p" <<'PY'
import json, sys
try:
    result = json.load(open(sys.argv[1]))
except Exception as e:
    sys.exit(f"no JSON result ({e})")
meta = json.load(open(sys.argv[2]))
plugin = sys.argv[3]
problems = []
if result.get("shaper") != plugin:
    problems.append(f"shaper is {result.get('shaper')!r}, not {plugin!r} (fallback: {result.get('fallback')!r})")
if result.get("fallback"):
    problems.append(f"fallback: {result['fallback']!r}")
summary = result.get("summary") or ""
missing = [s for s in meta["must_keep"] if s not in summary]
if missing:
    problems.append(f"must_keep not in summary: {missing}")
if problems:
    sys.exit("; ".join(problems))
print(f"{result.get('render_mode')}, {len(summary)} of {result.get('raw_bytes')} bytes")
PY
    ); then
      fail "$p/$name (exit $rc): $verdict $(head -c 300 "$TMP/result.err")"
    else
      echo "ok   $p/$name: $verdict"
      passed=$((passed + 1))
    fi
  done
done

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
