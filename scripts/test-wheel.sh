#!/usr/bin/env bash
# conv_tasks as an outsider installs it (make test-wheel): build the sdist and, from it, the
# wheel (python -m build); install the wheel with the kit's extra into a fresh virtual
# environment that has nothing else; install the example type package from a copy of it, as
# its author's users would (not editable); then, from a folder outside the repository (so that
# nothing but the installed packages can be imported), check `conv-tasks --version`,
# `resource-type list`, `db upgrade` on an empty database, and run the example's kit tests
# against the running services (CONV_TASKS_TEST_* as the kit reads them, the local servers by
# default). Everything is made under one temporary folder, removed at the end.
#
#   scripts/test-wheel.sh PYTHON BUILD_PYTHON
#
# PYTHON makes the fresh environment (a bare interpreter); BUILD_PYTHON runs `python -m build`
# (the project's .venv, where requirements-dev.txt pins build).
set -euo pipefail

python=${1:?usage: test-wheel.sh PYTHON BUILD_PYTHON}
build_python=${2:?usage: test-wheel.sh PYTHON BUILD_PYTHON}
repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/conv-tasks-wheel.XXXXXX")
bin=$work/venv/bin
server_url=${CONV_TASKS_TEST_DATABASE_URL:-postgresql+psycopg://postgres@127.0.0.1:5432/conv_tasks_test}
database=""

# CREATE or DROP ($1) the database $2 on the test PostgreSQL, with the fresh environment's psycopg.
database_sql() {
  "$bin/python" -c '
import sys

import psycopg

action, url, name = sys.argv[1:]
with psycopg.connect(url.replace("+psycopg", "", 1), autocommit=True) as conn:
    conn.execute(f"{action} DATABASE \"{name}\"")
' "$1" "$server_url" "$2"
}

cleanup() {
  status=$?
  if [ -n "$database" ]; then
    database_sql DROP "$database" || true
  fi
  rm -rf "$work"
  exit $status
}
trap cleanup EXIT

say() { echo "test-wheel: $*"; }
fail() {
  echo "test-wheel: $*" >&2
  exit 1
}

say "building the sdist and, from it, the wheel"
"$build_python" -m build --outdir "$work/dist" "$repo" >"$work/build.log" 2>&1 || {
  cat "$work/build.log" >&2
  fail "python -m build failed (its output above)"
}
wheels=("$work"/dist/conv_tasks-*-py3-none-any.whl)
sdists=("$work"/dist/conv_tasks-*.tar.gz)
[ -f "${wheels[0]}" ] && [ -f "${sdists[0]}" ] || fail "no wheel and sdist in $work/dist"
wheel=${wheels[0]}

say "a fresh virtual environment: $(basename "$wheel")[kit], then the example package"
"$python" -m venv "$work/venv"
"$bin/pip" install --quiet --upgrade pip
"$bin/pip" install --quiet "$wheel[kit]"
# From a copy whose src/ goes once it is installed: the tests import the installed package.
# Its dependencies (conv_tasks, psycopg) must be what the wheel brought: pip check says so.
cp -r "$repo/examples/conv_tasks_example" "$work/example"
rm -rf "$work/example/build" "$work/example/src/"*.egg-info
"$bin/pip" install --quiet "$wheel" "$work/example[test]"
"$bin/pip" check
rm -rf "$work/example/src"

cd "$work/example"
# The conv_tasks under test is the installed one, whatever the current folder holds.
"$bin/python" -c '
import sys

import conv_tasks

assert conv_tasks.__file__.startswith(sys.prefix), conv_tasks.__file__
'

version=$("$bin/conv-tasks" --version)
say "$version"
wheel_version=$(basename "$wheel" | cut -d- -f2)
[ "$version" = "conv-tasks $wheel_version" ] || fail "--version said '$version'; the wheel is $wheel_version"

say "conv-tasks resource-type list"
"$bin/conv-tasks" resource-type list | tee "$work/types.txt"
for type_name in ConvTasks::HTTP::Resource ConvTasks::PostgreSQL::Database \
  Example::PostgreSQL::Schema; do
  grep -q "^$type_name " "$work/types.txt" || fail "resource-type list does not list $type_name"
done

# The migrations are package data: `db upgrade` from the installed wheel on an empty database.
database="conv_tasks_wheel_$(basename "$work" | cut -d. -f2 | tr 'A-Z' 'a-z')"
database_sql CREATE "$database"
say "conv-tasks db upgrade on the empty database $database"
CONV_TASKS_DATABASE_URL="${server_url%/*}/$database" "$bin/conv-tasks" db upgrade

say "the example package's kit tests"
"$bin/python" -m pytest -p no:cacheprovider tests
