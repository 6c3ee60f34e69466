#!/bin/sh
# An observer: reads the payload, appends it as one line, prints nothing (= no opinion).
# printf, not echo: dash's echo would expand the backslash escapes inside the JSON.
PAYLOAD=$(cat)
LOG=${LOG_PATH:-${HOME:-.}/.plugline/audit.log}
mkdir -p "$(dirname "$LOG")"
printf '%s\n' "$PAYLOAD" >> "$LOG"
