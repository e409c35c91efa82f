#!/usr/bin/env bash
# Builds tools/bench/original/.venv, the environment of the ORIGINAL deltalite (PyPI `deltalite` 0.1.15, a
# cp312-abi3 wheel) that `pnpm bench upsert` runs as a contender, or reuses it when the pins and the Python
# version are unchanged since it was built (a stamp file, as tools/oracle/ensure-venv.sh does). pyarrow is
# pinned to the oracle's version (read from tools/oracle/requirements.txt) so both Python contenders read the
# batch with the same library.
#
#   bash tools/bench/original/ensure-venv.sh     exit 0: the venv is ready (its python is .venv/bin/python)
#                                                exit 3: no CPython >= 3.12 on this machine (one line on stderr)
#
# The interpreter: $DELTALITE_ORIGINAL_PYTHON when set (and only it), else pyenv's 3.12.x / 3.13.x installs, else python3.12,
# python3.13 or python3 on PATH — the first that really is CPython >= 3.12.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
venv="$here/.venv"
oracle_requirements="$here/../../oracle/requirements.txt"
pyarrow_pin="$(grep -E '^pyarrow==' "$oracle_requirements")"
requirements="deltalite==0.1.15 $pyarrow_pin"

is_cpython_312_plus() {
  "$1" -c 'import sys, platform; sys.exit(0 if platform.python_implementation() == "CPython" and sys.version_info >= (3, 12) else 1)' \
    >/dev/null 2>&1
}

find_python() {
  local candidates=()
  if [ -n "${DELTALITE_ORIGINAL_PYTHON:-}" ]; then
    candidates+=("$DELTALITE_ORIGINAL_PYTHON")
  elif command -v pyenv >/dev/null 2>&1; then
    local root
    root="$(pyenv root)"
    for dir in "$root"/versions/3.12* "$root"/versions/3.13*; do
      [ -x "$dir/bin/python3" ] && candidates+=("$dir/bin/python3")
    done
  fi
  [ -z "${DELTALITE_ORIGINAL_PYTHON:-}" ] && candidates+=(python3.12 python3.13 python3)
  for candidate in "${candidates[@]}"; do
    if is_cpython_312_plus "$candidate"; then
      command -v "$candidate"
      return 0
    fi
  done
  return 1
}

if ! python="$(find_python)"; then
  echo "[original] no CPython >= 3.12 found (pyenv versions, python3.12, python3.13, python3): the original deltalite 0.1.15 (cp312-abi3) is not run" >&2
  exit 3
fi
stamp="$( { echo "$requirements"; "$python" --version; } | sha256sum | cut -c1-16)"
if [ -f "$venv/.stamp" ] && [ "$(cat "$venv/.stamp")" = "$stamp" ] && [ -x "$venv/bin/python" ]; then
  exit 0
fi
echo "[original] building the original deltalite's venv in $venv from $python ($("$python" --version))" >&2
rm -rf "$venv"
"$python" -m venv "$venv"
# shellcheck disable=SC2086 # the requirements are two words on purpose
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check --only-binary=:all: $requirements
"$venv/bin/python" -c "import deltalite, pyarrow; from importlib.metadata import version; print('[original] deltalite', version('deltalite'), 'pyarrow', pyarrow.__version__)" >&2
echo "$stamp" > "$venv/.stamp"
