// scripts/env.sh's decisions, run in bash as scripts/run.sh runs them: which Node it uses or provisions for a
// platform, CAPTIONING_NO_PROVISION, and the mkdir lock that replaced flock.
import { spawnSync } from 'node:child_process';
import {
	chmodSync,
	mkdirSync,
	mkdtempSync,
	readFileSync,
	rmSync,
	utimesSync,
	writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

const ENV_SH = join(__dirname, '..', '..', 'scripts', 'env.sh');

let work: string;
beforeEach(() => {
	work = mkdtempSync(join(tmpdir(), 'captioning-env-'));
});
afterEach(() => rmSync(work, { recursive: true, force: true }));

/** Runs `script` in bash after sourcing env.sh (set -e: a failed source ends it), with `env` added. */
function bash(script: string, env: Record<string, string> = {}) {
	const result = spawnSync('bash', ['-c', `source "${ENV_SH}"\n${script}`], {
		encoding: 'utf8',
		env: {
			...process.env,
			CAPTIONING_CACHE: join(work, 'cache'),
			CAPTIONING_NODE_VERSION: '24.21.0',
			// CI runs npm test itself with it set
			CAPTIONING_NO_PROVISION: '',
			...env,
		},
	});
	return { status: result.status, stdout: result.stdout.trim(), stderr: result.stderr.trim() };
}

/** A `node` that answers env.sh's questions as Node `version` on `platform` would; its folder, for PATH. */
function fakeNode(version: string, platform: string): string {
	const dir = join(work, 'fake-bin');
	mkdirSync(dir, { recursive: true });
	const node = join(dir, 'node');
	writeFileSync(
		node,
		`#!/bin/sh
case "$*" in
*process.versions.node*) echo ${version.split('.')[0]} ;;
*process.platform*) echo ${platform} ;;
-v) echo v${version} ;;
*) exit 1 ;;
esac
`,
	);
	chmodSync(node, 0o755);
	return dir;
}

describe('the Node env.sh uses', () => {
	test('the Node 24 on PATH, with nothing provisioned (CAPTIONING_NO_PROVISION=1 passes)', () => {
		// the Node that runs jest: >= 24 (scripts/run.sh)
		const run = bash('command -v node; printf "%s\\n" "${npm_config_nodedir:-}"', {
			PATH: `${dirname(process.execPath)}:${process.env.PATH}`,
			CAPTIONING_NO_PROVISION: '1',
		});
		expect(run.status).toBe(0);
		const [node, headers] = run.stdout.split('\n');
		expect(node).toBe(process.execPath);
		// the headers of the Node that runs, when its folder has them
		expect(headers === '' || process.execPath.startsWith(headers)).toBe(true);
	});

	test.each([
		['linux-x64', '24.21.0'],
		['linux-arm64', '24.21.0'],
		['win-x64', '24.21.0'],
		['darwin-x64', '24.18.1'],
	])(
		'provisions node-%s@%s from the npm registry when the Node on PATH is older',
		(platform, version) => {
			expect(bash(`provisionable_node ${platform}`)).toMatchObject({ status: 0, stdout: version });
		},
	);

	test.each(['darwin-arm64', 'win-arm64', 'linux-ppc64le', 'linux-s390x'])(
		'has no Node 24 to provision for %s: asks for one',
		(platform) => {
			expect(bash(`provisionable_node ${platform}`).status).toBe(1);
			const run = bash('true', { PATH: `${fakeNode('20.19.0', platform)}:${process.env.PATH}` });
			expect(run.status).toBe(1);
			expect(run.stderr).toBe(
				`Node v20.19.0 is on PATH; n8n 2.41 needs Node >= 24, and the npm registry has no Node 24 for ` +
					`${platform}: install Node 24 (nodejs.org, nvm, Homebrew: brew install node@24) and run again`,
			);
		},
	);

	test('refuses to provision an older Node on PATH under CAPTIONING_NO_PROVISION=1', () => {
		const run = bash('true', {
			PATH: `${fakeNode('20.19.0', 'linux-x64')}:${process.env.PATH}`,
			CAPTIONING_NO_PROVISION: '1',
		});
		expect(run).toMatchObject({
			status: 1,
			stderr:
				'CAPTIONING_NO_PROVISION=1, but Node 24 (the Node on PATH is v20.19.0) would have to be provisioned',
		});
	});
});

describe('the lock (mkdir, no flock)', () => {
	test('a second holder waits for the first to release it', () => {
		const lock = join(work, 'thing');
		const order = join(work, 'order');
		const run = bash(
			`acquire_lock "${lock}"
			 ( acquire_lock "${lock}"; echo second >>"${order}"; release_lock "${lock}" ) &
			 sleep 1; echo first >>"${order}"; release_lock "${lock}"; wait`,
		);
		expect(run.status).toBe(0);
		expect(readFileSync(order, 'utf8')).toBe('first\nsecond\n');
	});

	test('a lock whose holder died is taken over', () => {
		const lock = join(work, 'thing');
		mkdirSync(`${lock}.lock.d`);
		// a pid that is not running: a finished child's
		const dead = spawnSync('sh', ['-c', 'echo $$'], { encoding: 'utf8' }).stdout.trim();
		writeFileSync(join(`${lock}.lock.d`, 'pid'), dead);
		const run = bash(`acquire_lock "${lock}" && cat "${lock}.lock.d/pid"`);
		expect(run.status).toBe(0);
		expect(run.stdout).not.toBe(dead);
	});

	test('a lock without a holder is being taken: left alone while fresh, taken over once a minute old', () => {
		const lock = join(work, 'thing');
		const dir = `${lock}.lock.d`;
		mkdirSync(dir);
		// fresh: a second taker is still waiting 1.5 s later
		const fresh = bash(
			`( acquire_lock "${lock}" ) & sleep 1.5; [ -f "${dir}/pid" ] && echo taken || echo waiting; kill $! 2>/dev/null; true`,
		);
		expect(fresh.stdout).toBe('waiting');
		const twoMinutesAgo = new Date(Date.now() - 120_000);
		utimesSync(dir, twoMinutesAgo, twoMinutesAgo);
		expect(bash(`acquire_lock "${lock}" && [ -f "${dir}/pid" ] && echo taken`).stdout).toBe(
			'taken',
		);
	});
});
