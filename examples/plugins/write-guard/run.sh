#!/bin/sh
# Payload: {"event":"pre_tool_call","tool":"write_file","arguments":"{\"path\":\"/x\",...}",...}
# `arguments` is a JSON-encoded string, so inside the payload its quotes appear as \".
PAYLOAD=$(cat)
ALLOWED=${ALLOWED_DIR:?ALLOWED_DIR is not set}

deny() {
  # The reason is built from fixed text and ALLOWED_DIR only, so it is valid JSON as long as
  # the directory name has no quote or backslash.
  printf '{"deny":true,"reason":"%s"}\n' "$1"
  exit 0
}

# Which tool? (a tool name is a plain identifier, so a simple match is exact)
TOOL=$(printf '%s' "$PAYLOAD" | sed -n 's/.*"tool":[[:space:]]*"\([^"]*\)".*/\1/p')
case " $WRITE_TOOLS " in
  *" $TOOL "*) ;;
  *) exit 0 ;;  # not a write: no opinion
esac

# The target path, under any of the usual argument names.
FILE=""
for key in path file_path filePath notebook_path; do
  FILE=$(printf '%s' "$PAYLOAD" |
    sed -n "s/.*\\\\\"$key\\\\\":[[:space:]]*\\\\\"\\([^\"\\\\]*\\)\\\\\".*/\\1/p")
  [ -n "$FILE" ] && break
done
[ -n "$FILE" ] || deny "$TOOL: no file path found in the arguments; writes are limited to $ALLOWED"

case "$FILE" in
  /*) ;;
  *) deny "$TOOL: relative path $FILE; writes are limited to $ALLOWED (give an absolute path)" ;;
esac
# Resolve .. and symlinks (of the parts that exist) before comparing.
REAL=$(realpath -m -- "$FILE" 2>/dev/null) || deny "$TOOL: cannot resolve $FILE"
ROOT=$(realpath -m -- "$ALLOWED" 2>/dev/null) || ROOT=$ALLOWED
case "$REAL/" in
  "$ROOT"/*) exit 0 ;;  # inside: no opinion
esac
deny "writes are limited to $ALLOWED ($FILE is outside)"
