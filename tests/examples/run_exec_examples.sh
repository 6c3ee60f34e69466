#!/usr/bin/env bash
# Integration test of the example exec hook plugins (examples/plugins/{audit-log,write-guard,
# redact-secrets}) through `plugline hook`, with real processes.
#
#   tests/examples/run_exec_examples.sh PATH/TO/plugline
#
# Copies the three into a temporary PLUGLINE_HOME, checks `plugline plugins --json` lists them
# enabled, then dispatches payloads and checks the result JSON (denied, denied_by, arguments,
# result, plugins) and the exit status (0, or 3 when denied). Prints one line per check and a
# closing count; exits 0 when every check passed.
set -euo pipefail

PLUGLINE=${1:?usage: $0 PATH/TO/plugline}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
TMP=$(mktemp -d)
# Commands start a server for this home when a JS plugin is enabled; it goes with the home.
# Once stop returns, the server writes nothing more into the home.
trap '"$PLUGLINE" server stop >/dev/null 2>&1; rm -rf "$TMP"' EXIT
export PLUGLINE_HOME=$TMP/home
export HOME=$TMP/user  # the audit log's default place is under $HOME
mkdir -p "$PLUGLINE_HOME/plugins" "$HOME"
for p in audit-log write-guard redact-secrets; do cp -r "$ROOT/examples/plugins/$p" "$PLUGLINE_HOME/plugins/"; done
# The guard protects a directory of this test (its manifest names /home/me/project).
sed -i "s|ALLOWED_DIR: /home/me/project|ALLOWED_DIR: $TMP/project|" \
  "$PLUGLINE_HOME/plugins/write-guard/plugin.yaml"
mkdir -p "$TMP/project/src"
ln -s /etc "$TMP/project/etc-link"

passed=0
failed=0
check() {  # check NAME EXPECTED_STATUS PYTHON_ASSERTION EVENT PAYLOAD
  local name=$1 want_status=$2 assertion=$3 event=$4 payload=$5 out status=0
  out=$(printf '%s' "$payload" | "$PLUGLINE" hook "$event" 2>"$TMP/stderr") || status=$?
  if [ "$status" != "$want_status" ]; then
    echo "FAIL $name: exit status $status, expected $want_status; output: $out; stderr: $(cat "$TMP/stderr")"
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
# A pre_tool_call payload for TOOL with ARGS (a JSON object), arguments JSON-encoded.
call() {
  python3 -c 'import json,sys; print(json.dumps({"event":"pre_tool_call","session_id":"ses_1","platform":"cli","tool":sys.argv[1],"arguments":json.dumps(json.loads(sys.argv[2]))}))' "$1" "$2"
}

listing=$("$PLUGLINE" plugins --json)
if python3 -c "
import json,sys
p={e['id']:e for e in json.loads(sys.argv[1])['plugins']}
for name in ('audit-log','write-guard','redact-secrets'):
    assert p[name]['state']=='enabled' and p[name]['kind']=='exec-hook', p[name]
" "$listing"; then echo "ok   listed"; passed=$((passed + 1)); else echo "FAIL listed: $listing"; failed=$((failed + 1)); fi

P=$TMP/project
check "write inside the directory passes" 0 \
  'not r["denied"] and [p["plugin"] for p in r["plugins"]] == ["audit-log", "write-guard"]' \
  pre_tool_call "$(call write_file "{\"path\":\"$P/src/a.c\",\"content\":\"int x;\"}")"
check "write outside is denied" 3 \
  'r["denied"] and r["denied_by"] == "write-guard" and "/etc/passwd is outside" in r["reason"]' \
  pre_tool_call "$(call write_file '{"path":"/etc/passwd","content":"x"}')"
check "a .. escape is denied" 3 'r["denied"] and r["denied_by"] == "write-guard"' \
  pre_tool_call "$(call Edit "{\"file_path\":\"$P/src/../../outside.txt\",\"old_string\":\"a\",\"new_string\":\"b\"}")"
check "a symlink out of the directory is denied" 3 'r["denied"]' \
  pre_tool_call "$(call write_file "{\"path\":\"$P/etc-link/passwd\"}")"
check "a path that only mentions the directory is denied" 3 'r["denied"]' \
  pre_tool_call "$(call write_file "{\"path\":\"/tmp$P/x\"}")"
check "an allowed path smuggled into the content does not help" 3 'r["denied"]' \
  pre_tool_call "$(call Write "{\"file_path\":\"/etc/hosts\",\"content\":\"\\\"file_path\\\":\\\"$P/a\\\"\"}")"
check "a relative path is denied" 3 'r["denied"] and "relative path" in r["reason"]' \
  pre_tool_call "$(call write_file '{"path":"src/a.c"}')"
check "a write with no path is denied" 3 'r["denied"] and "no file path" in r["reason"]' \
  pre_tool_call "$(call write_file '{"content":"x"}')"
check "other tools pass untouched" 0 \
  'not r["denied"] and json.loads(r["arguments"]) == {"command": "rm -rf build"}' \
  pre_tool_call "$(call terminal '{"command":"rm -rf build"}')"

# The audit log has one line per pre_tool_call so far (9), each the payload as sent.
lines=$(wc -l < "$HOME/.plugline/audit.log")
if [ "$lines" = 9 ] && python3 -c "
import json,sys
rows=[json.loads(l) for l in open(sys.argv[1])]
assert rows[-1]['tool']=='terminal' and json.loads(rows[-1]['arguments'])=={'command':'rm -rf build'}
" "$HOME/.plugline/audit.log"; then
  echo "ok   audit log has every call"; passed=$((passed + 1))
else
  echo "FAIL audit log: $lines lines"; failed=$((failed + 1))
fi

check "secrets are redacted from a tool's result" 0 \
  'r["result"] == "key sk-abcdefgh… token ghp_abcd… id AKIAABCD… done" and r["plugins"][0]["action"] == "replace"' \
  post_tool_call '{"tool":"terminal","result":"key sk-abcdefgh12345678XYZ token ghp_abcdefghijklmnopqrstuvwxyz0123456789 id AKIAABCDEFGHIJKLMNOP done"}'
check "a private key block is redacted" 0 \
  '"MIIEvQ" not in r["result"] and "(redacted)" in r["result"]' \
  post_tool_call '{"tool":"read_file","result":"-----BEGIN RSA PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n-----END RSA PRIVATE KEY-----\n"}'
check "a result without secrets is left alone" 0 \
  'r["result"] == "all tests passed" and r["plugins"][0]["action"] == "none"' \
  post_tool_call '{"tool":"terminal","result":"all tests passed"}'
check "observe-only events reach no example" 0 'r["plugins"] == []' session_start '{"session_id":"ses_1"}'

echo "exec examples: $passed passed, $failed failed"
[ "$failed" = 0 ]
