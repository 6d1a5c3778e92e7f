#!/usr/bin/env bash
# One entry point for the package.json scripts: runs each under Node 24 with the project's dependencies installed,
# so that `npm test` and `npm run dev` work on a fresh clone of a Node 20 machine.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
ensure_deps
cd "$PROJECT_ROOT"
export PATH="$PROJECT_ROOT/node_modules/.bin:$PATH"

task="${1:?usage: run.sh <build|lint|test|sandbox|dev|exec> [args...]}"
shift
case "$task" in
build) rm -rf dist && tsc -p tsconfig.build.json && gulp build:icons ;;
lint) eslint --max-warnings 0 . "$@" ;;
test) jest "$@" ;;
sandbox) exec tsx sandbox/cli.ts "$@" ;;
dev) exec tsx scripts/dev.ts "$@" ;;
exec) exec "$@" ;;
*) echo "unknown task: $task" >&2 && exit 2 ;;
esac
