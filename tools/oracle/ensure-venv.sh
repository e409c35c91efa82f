#!/usr/bin/env bash
# Creates tools/oracle/.venv with the pinned oracle packages, or reuses it when requirements.txt and the
# Python version are unchanged since it was built.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
venv="$here/.venv"
python="${DELTALITE_PYTHON:-python3}"
stamp="$( { cat "$here/requirements.txt"; "$python" --version; } | sha256sum | cut -c1-16)"
if [ -f "$venv/.stamp" ] && [ "$(cat "$venv/.stamp")" = "$stamp" ] && [ -x "$venv/bin/python" ]; then
  exit 0
fi
echo "[oracle] building Python venv in $venv" >&2
rm -rf "$venv"
"$python" -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r "$here/requirements.txt"
echo "$stamp" > "$venv/.stamp"
"$venv/bin/python" -c "import deltalake, pyarrow, moto; print('[oracle] deltalake', deltalake.__version__, 'pyarrow', pyarrow.__version__, 'moto', moto.__version__)" >&2
