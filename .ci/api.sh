#!/usr/bin/env bash
# Regenerates api/, the exported API of every public package as text (one
# file per package; internal/apitext says what it holds). Run it after an
# intended API change and commit the result:
#
#	.ci/api.sh
#
# With --check it regenerates and fails if api/ then differs from the
# committed files, as .ci/run does: the API changes only on purpose.
set -euo pipefail
cd "$(dirname "$0")/.."
go run ./internal/apitext -dir api
if [[ ${1:-} == --check ]]; then
	if [[ -n $(git status --porcelain -- api) ]]; then
		git status --short -- api
		git --no-pager diff -- api
		echo "the exported API changed: run .ci/api.sh and commit api/ if the change is meant"
		exit 1
	fi
fi
