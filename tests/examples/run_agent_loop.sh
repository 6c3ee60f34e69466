#!/usr/bin/env bash
# Runs one language's agent-loop example and compares its transcript with agent_loop.expected,
# which every language must print: the same denies, rewrites, redactions and summaries.
#
#   run_agent_loop.sh PROGRAM [ARG...]      (the example's HOME is appended)
#
# The home is a fresh directory with examples/plugins/redact-secrets installed, as the
# examples' READMEs say. What differs between runs — where the raw output was stored, and so
# the token count of a summary that names it — is compared by its shape.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
home="$(mktemp -d)"
trap 'rm -rf "$home"' EXIT
mkdir -p "$home/plugins"
cp -r "$repo/examples/plugins/redact-secrets" "$home/plugins/"

"$@" "$home" > "$home/transcript.raw"
# The raw output is stored under <home>/outputs/<time>-<pid>-<n>.log.
grep -Eq "^    full output: $home/outputs/[0-9]{8}T[0-9]{6}\.[0-9]{3}Z-[0-9]+-[0-9]+\.log\$" \
  "$home/transcript.raw" || { echo "no 'full output:' line naming <home>/outputs/*.log"; exit 1; }
sed -E -e 's#full output: .*#full output: (the stored raw output)#' \
  -e 's#(, summary, [0-9]+ -> )[0-9]+ tokens#\1(n) tokens#' "$home/transcript.raw" \
  > "$home/transcript"
if ! diff -u "$here/agent_loop.expected" "$home/transcript"; then
  echo "run_agent_loop.sh: $* printed a different transcript (diff above)" >&2
  exit 1
fi
echo "agent loop: $(basename "$1") ${2:+$(basename "$2")}: transcript as expected"
