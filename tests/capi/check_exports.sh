#!/usr/bin/env bash
# usage: check_exports.sh LIBRARY REGEX
# Fails when LIBRARY exports (defines, in its dynamic symbol table) a symbol not matching REGEX.
set -euo pipefail
lib=$1 pattern=$2
symbols=$(nm -D --defined-only "$lib" | awk '{print $3}')
[ -n "$symbols" ] || { echo "no exported symbols in $lib"; exit 1; }
bad=$(grep -Ev "$pattern" <<<"$symbols" || true)
if [ -n "$bad" ]; then
  echo "$lib exports symbols outside $pattern:"
  echo "$bad" | head -20
  exit 1
fi
echo "$lib: $(wc -l <<<"$symbols") exported symbols, all match $pattern"
