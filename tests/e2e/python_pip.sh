#!/bin/bash
# python_pip.sh — `pip install ./python` in a fresh virtual environment,
# offline, with nothing the venv lacks: the helper's build backend
# (python/_flinch_build.py, named by pyproject.toml) is the standard library
# alone, so neither setuptools nor wheel is needed (a venv has no wheel:
# setuptools' backend failed with "invalid command 'bdist_wheel'"). With and
# without build isolation, -e, and the sdist.
. "$ROOT/tests/lib.sh"
unset PYTHONPATH
if ! command -v python3 >/dev/null 2>&1 || ! python3 -m venv venv >venv.txt 2>&1 ||
   ! venv/bin/python -m pip --version >/dev/null 2>&1; then
  skip "pip install ./python in a venv" "no python3 with venv and ensurepip (python3-venv)"
  done_testing
fi
echo "# $(venv/bin/python --version), $(venv/bin/python -m pip --version | cut -d' ' -f1-2)"
pip() { venv/bin/python -m pip -q --disable-pip-version-check "$@" >pip.txt 2>&1; }
where() { (cd / && "$T/venv/bin/python" -c 'import flinch; print(flinch.__file__)' 2>&1); }
cp -r "$ROOT/python" pysrc            # pip may write in the source tree: never in the repository's
site="^$T/venv/lib/python3\.[0-9]+/site-packages/flinch\.py\$"

expect_eq "the venv has no wheel" "$(venv/bin/python -c 'import wheel' 2>&1 | tail -n 1)" \
  "ModuleNotFoundError: No module named 'wheel'"
pip install --no-index ./pysrc
expect_eq "pip install --no-index ./python (build isolation)" "$?:$(grep -v WARNING pip.txt)" "0:"
expect_match "the venv imports its installed flinch" "$site" "$(where)"
check "the installed module runs (no recorder: reported, never raised)" \
  sh -c 'cd / && FLINCH_MARKS="$2" "$1" -c "import flinch; flinch.mark(\"x\"); assert flinch.stats()[\"undelivered\"] == 1"' _ "$T/venv/bin/python" "$T/no-fifo"
pip uninstall -y flinch
expect_eq "pip uninstall" "$?:$(where | tail -n 1)" "0:ModuleNotFoundError: No module named 'flinch'"

pip install --no-index --no-build-isolation ./pysrc
expect_eq "pip install --no-index --no-build-isolation ./python" "$?:$(grep -v WARNING pip.txt)" "0:"
expect_match "the venv imports its installed flinch (no isolation)" "$site" "$(where)"
pip uninstall -y flinch

pip install --no-index -e ./pysrc
expect_eq "pip install -e ./python" "$?:$(grep -v WARNING pip.txt)" "0:"
expect_eq "-e: the venv imports the source tree's flinch" "$(where)" "$T/pysrc/flinch.py"
pip uninstall -y flinch

(cd pysrc && "$T/venv/bin/python" -c 'import _flinch_build as b, sys; print(b.build_sdist(sys.argv[1]))' "$T") >sdist.txt 2>&1
expect_eq "build_sdist" "$(cat sdist.txt)" "flinch-0.1.tar.gz"
expect_eq "the sdist's files" "$(tar -tzf flinch-0.1.tar.gz | sort | tr '\n' ' ')" \
  "flinch-0.1/PKG-INFO flinch-0.1/_flinch_build.py flinch-0.1/flinch.py flinch-0.1/pyproject.toml "
pip install --no-index ./flinch-0.1.tar.gz
expect_eq "pip install the sdist" "$?:$(grep -v WARNING pip.txt)" "0:"
expect_match "the venv imports flinch from the sdist" "$site" "$(where)"
expect_eq "nothing built in the source tree" "$(ls pysrc | grep -v __pycache__ | tr '\n' ' ')" \
  "_flinch_build.py flinch.py pyproject.toml "
done_testing
