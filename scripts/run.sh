#!/usr/bin/env bash
# One entry point for the package.json scripts: runs each under Node 24 with the project's dependencies installed,
# so that `npm test` and `npm run dev` work on a fresh clone of a Node 20 machine.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
ensure_deps
cd "$PROJECT_ROOT"
export PATH="$PROJECT_ROOT/node_modules/.bin:$PATH"

# Builds into a private folder, then swaps it in: a suite packing dist/ meanwhile never sees half of it.
build_dist() {
	local out=".tmp/dist-$$"
	rm -rf "$out" && mkdir -p .tmp
	tsc -p tsconfig.build.json --outDir "$out"
	CAPTIONING_BUILD_OUT="$out" gulp --silent build:assets
	rm -rf dist && mv "$out" dist
}

task="${1:?usage: run.sh <build|lint|test|e2e|faults|queue|bench|browser|sandbox|dev|n8n-install|exec> [args...]}"
shift
case "$task" in
build) build_dist ;;
lint)
	eslint --max-warnings 0 . "$@"
	tsc --noEmit -p tsconfig.json
	# n8n's package scanner runs on what ships: build, pack, scan
	build_dist
	node scripts/scan-package.mjs
	;;
test) jest "$@" ;;
e2e)
	ensure_n8n >/dev/null
	jest -c jest.e2e.config.js --runInBand "$@"
	;;
browser)
	ensure_chromium
	ensure_playwright
	ensure_n8n >/dev/null
	jest -c jest.browser.config.js --runInBand "$@"
	;;
n8n-install) ensure_n8n ;;
sandbox) exec tsx sandbox/cli.ts "$@" ;;
dev)
	ensure_n8n >/dev/null
	exec tsx scripts/dev.ts "$@"
	;;
bench)
	ensure_n8n >/dev/null
	exec tsx bench/run.ts "$@"
	;;
faults)
	ensure_n8n >/dev/null
	jest -c jest.faults.config.js --runInBand "$@"
	;;
queue)
	ensure_n8n >/dev/null
	jest -c jest.queue.config.js --runInBand "$@"
	;;
exec) exec "$@" ;;
*) echo "unknown task: $task" >&2 && exit 2 ;;
esac
