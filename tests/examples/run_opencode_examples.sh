#!/usr/bin/env bash
# Integration test of the example OpenCode plugins (examples/plugins/opencode/) through the CLI:
# `plugline hook` (canonical events), `plugline trigger` (hooks by name), `plugline tools` and
# `plugline tool` (custom tools), with real V8 and real processes.
#
#   tests/examples/run_opencode_examples.sh PATH/TO/plugline
#   ISOLATION=process tests/examples/run_opencode_examples.sh PATH/TO/plugline
#
# Prints one line per check and a closing count; exits 0 when every check passed.
set -euo pipefail

PLUGLINE=${1:?usage: $0 PATH/TO/plugline}
PLUGLINE=$(cd "$(dirname "$PLUGLINE")" && pwd)/$(basename "$PLUGLINE")
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
TMP=$(mktemp -d)
# Commands start a server for this home when a JS plugin is enabled; it goes with the home.
# Once stop returns, the server writes nothing more into the home.
trap '"$PLUGLINE" server stop >/dev/null 2>&1; rm -rf "$TMP"' EXIT
export PLUGLINE_HOME=$TMP/home
mkdir -p "$PLUGLINE_HOME/plugins" "$TMP/work"
cp -r "$ROOT/examples/plugins/opencode/." "$PLUGLINE_HOME/plugins/"
if [ -n "${ISOLATION:-}" ]; then
  printf 'plugins:\n  js:\n    isolation: %s\n' "$ISOLATION" > "$PLUGLINE_HOME/config.yaml"
fi
cd "$TMP/work"

passed=0
failed=0
# check NAME EXPECTED_STATUS PYTHON_ASSERTION_ON_r COMMAND...
check() {
  local name=$1 want=$2 assertion=$3 out status=0
  shift 3
  out=$("$@" 2>"$TMP/stderr") || status=$?
  if [ "$status" != "$want" ]; then
    echo "FAIL $name: exit status $status, expected $want; output: $out; stderr: $(cat "$TMP/stderr")"
    failed=$((failed + 1))
    return
  fi
  if python3 -c "import json,sys; r=json.loads(sys.argv[1]); assert $assertion, r" "$out" 2>"$TMP/assert"; then
    echo "ok   $name"
    passed=$((passed + 1))
  else
    echo "FAIL $name: $(tail -1 "$TMP/assert")"
    failed=$((failed + 1))
  fi
}
hook() { printf '%s' "$2" | "$PLUGLINE" hook "$1"; }

check "every example loads as an opencode plugin" 0 \
  '{p["id"]: (p["kind"], p["state"]) for p in r["plugins"] if p["source"] == "global"} == {"command-guard": ("opencode", "enabled"), "env-protection": ("opencode", "enabled"), "inject-env": ("opencode", "enabled"), "python-tool": ("opencode", "enabled")}' \
  "$PLUGLINE" plugins --json
check ".env reads are refused" 3 \
  'r["denied"] and r["denied_by"] == "env-protection" and r["reason"] == "Do not read .env files"' \
  hook pre_tool_call '{"session_id":"s1","tool":"read","arguments":"{\"filePath\":\"/srv/app/.env\"}"}'
check "other reads pass" 0 'not r["denied"]' \
  hook pre_tool_call '{"session_id":"s1","tool":"read","arguments":"{\"filePath\":\"/srv/app/main.py\"}"}'
check "the TypeScript guard refuses a force push" 3 \
  'r["denied_by"] == "command-guard" and "force pushes" in r["reason"]' \
  hook pre_tool_call '{"tool":"bash","arguments":"{\"command\":\"git push --force origin main\"}"}'
check "the TypeScript guard lets a normal push through" 0 'not r["denied"]' \
  hook pre_tool_call '{"tool":"bash","arguments":"{\"command\":\"git push origin main\"}"}'
check "shell.env injects variables" 0 \
  'r["output"]["env"] == {"PATH": "/bin", "MY_API_KEY": "secret", "PROJECT_ROOT": "/srv/app"} and r["errors"] == []' \
  "$PLUGLINE" trigger shell.env --input '{"cwd":"/srv/app"}' --output '{"env":{"PATH":"/bin"}}'
check "the Python tool is listed with a JSON Schema" 0 \
  '[t["name"] for t in r["tools"]] == ["add"] and r["tools"][0]["parameters"]["properties"]["a"]["type"] == "number" and r["tools"][0]["parameters"]["required"] == ["a", "b"]' \
  "$PLUGLINE" tools --json
check "the Python tool runs through \$" 0 'r["ok"] and r["output"] == "5.5" and r["plugin"] == "python-tool"' \
  "$PLUGLINE" tool add --args '{"a":2,"b":3.5}'
check "bad arguments are an error result" 1 'not r["ok"] and "invalid arguments for add" in r["error"]' \
  "$PLUGLINE" tool add --args '{"a":"2; rm -rf /"}'

# The npm package example, packed and installed with the real npm (offline: it has no
# dependencies), then named in config with options.
if command -v npm >/dev/null 2>&1; then
  (cd "$TMP" && npm pack "$ROOT/examples/npm-package" --silent >/dev/null)
  npm install --prefix "$PLUGLINE_HOME" --offline --no-audit --no-fund --silent \
    "$TMP"/plugline-examples-dangerous-commands-*.tgz
  {
    printf 'plugins:\n'
    [ -n "${ISOLATION:-}" ] && printf '  js:\n    isolation: %s\n' "$ISOLATION"
    printf '  packages:\n'
    printf '    - ["@plugline-examples/dangerous-commands@1.0.0", {allow: ["git push --force origin scratch"], extra: [{pattern: "\\\\bshutdown\\\\b", reason: "shuts the machine down"}]}]\n'
  } > "$PLUGLINE_HOME/config.yaml"
  check "the npm package is installed and listed" 0 \
    '[(p["kind"], p["state"], p["version"], p["source"]) for p in r["plugins"] if p["id"] == "@plugline-examples/dangerous-commands"] == [("opencode", "enabled", "1.0.0", "global-config")]' \
    "$PLUGLINE" plugins --json
  check "the npm package refuses rm -rf ~" 3 \
    'r["denied_by"] == "@plugline-examples/dangerous-commands" and "deletes a home or root directory" in r["reason"]' \
    hook pre_tool_call '{"tool":"bash","arguments":"{\"command\":\"rm -rf ~\"}"}'
  check "its options add patterns" 3 'r["reason"].endswith("shuts the machine down")' \
    hook pre_tool_call '{"tool":"bash","arguments":"{\"command\":\"sudo shutdown now\"}"}'
  # Allowed by the package (which runs first: config before directories); the TypeScript guard
  # still refuses it.
  check "its options allow a command; a later plugin may still refuse it" 3 \
    'r["plugins"][0] == {**r["plugins"][0], "plugin": "@plugline-examples/dangerous-commands", "action": "none"} and r["denied_by"] == "command-guard"' \
    hook pre_tool_call '{"tool":"bash","arguments":"{\"command\":\"git push --force origin scratch\"}"}'
else
  echo "skip the npm package example: npm is not installed"
fi

echo "opencode examples: $passed passed, $failed failed"
[ "$failed" = 0 ]
