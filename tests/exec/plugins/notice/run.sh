#!/bin/sh
cat >/dev/null
printf '{"notice":"%s %s greeting=%s answer=%s cwd=%s"}\n' "$1" "$2" "$GREETING" "$ANSWER" "$(pwd -P)"
