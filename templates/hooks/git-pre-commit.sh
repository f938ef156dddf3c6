#!/bin/sh
# Managed by create-gateline: runs gateline validate before each commit.
if ! command -v node >/dev/null 2>&1; then
  echo "gateline: node is not on PATH; install Node 24 to commit here" >&2
  exit 1
fi
exec {{command}}
