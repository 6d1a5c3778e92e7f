// Builds and packs a package the way it reaches n8n from the registry: the `npm pack` tarball.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import {
	copyFile,
	mkdir,
	mkdtemp,
	readFile,
	rename,
	rm,
	symlink,
	writeFile,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { promisify } from 'node:util';

import { PROJECT_ROOT } from './install';
import { isAlive } from './process';

const execFileAsync = promisify(execFile);

async function run(command: string, args: string[], cwd: string): Promise<string> {
	try {
		const { stdout } = await execFileAsync(command, args, { cwd, maxBuffer: 64 * 1024 * 1024 });
		return stdout;
	} catch (error) {
		const { stdout, stderr } = error as { stdout?: string; stderr?: string };
		throw new Error(
			`\`${command} ${args.join(' ')}\` failed in ${cwd}:\n${stdout ?? ''}\n${stderr ?? ''}`,
		);
	}
}

/**
 * `npm pack` of a package folder into `destination` (default: a new temp dir); returns the tarball. npm runs the
 * package's prepack (this project's: the build) unless `ignoreScripts`.
 */
export async function packDirectory(
	directory: string,
	destination?: string,
	options: { ignoreScripts?: boolean } = {},
): Promise<string> {
	const dest = destination ?? (await mkdtemp(join(tmpdir(), 'captioning-pack-')));
	const flags = options.ignoreScripts ? ['--ignore-scripts'] : [];
	const stdout = await run(
		'npm',
		['pack', '--json', ...flags, '--pack-destination', dest],
		directory,
	);
	// lifecycle scripts (prepack) may print before npm's JSON report
	const report = stdout.slice(stdout.search(/^\[/m));
	const [entry] = JSON.parse(report) as { filename: string }[];
	return join(dest, entry.filename);
}

/** Files in a tarball, without npm's `package/` prefix. */
export async function listTarball(tarball: string): Promise<string[]> {
	const { stdout } = await execFileAsync('tar', ['-tzf', tarball], { maxBuffer: 16 * 1024 * 1024 });
	return stdout
		.split('\n')
		.filter(Boolean)
		.map((file) => file.replace(/^package\//, ''));
}

/** Throws unless every node and credential file package.json's `n8n` section names is in the tarball. */
export async function assertTarballHasN8nEntries(tarball: string): Promise<void> {
	const { stdout } = await execFileAsync('tar', ['-xzOf', tarball, 'package/package.json']);
	const manifest = JSON.parse(stdout) as { n8n?: { nodes?: string[]; credentials?: string[] } };
	const wanted = [...(manifest.n8n?.nodes ?? []), ...(manifest.n8n?.credentials ?? [])];
	if (wanted.length === 0) throw new Error(`${tarball}: package.json lists no n8n nodes`);
	const files = new Set(await listTarball(tarball));
	const missing = wanted.filter((file) => !files.has(file));
	if (missing.length > 0) {
		throw new Error(
			`${tarball} lacks files its package.json n8n section names: ${missing.join(', ')}`,
		);
	}
}

export interface PackProjectOptions {
	/** Build dist/ first (package.json's prepack, as `npm pack` and `npm publish` do); default true. */
	build?: boolean;
	/** Take the tarball last packed from the same inputs, if there is one; default true. */
	reuse?: boolean;
	destination?: string;
}

// What the build (scripts/run.sh stages these) and `npm pack` read: the same contents pack the same tarball.
const PACK_INPUTS = [
	'package.json',
	'package-lock.json',
	'tsconfig.build.json',
	'eslint.config.mjs',
	'README.md',
	'LICENSE',
	'CHANGELOG.md',
	'scripts/run.sh',
	'nodes',
	'credentials',
];

/** A hash of the contents (and paths) of everything a build and `npm pack` of the repository read. */
export function packInputsHash(root = PROJECT_ROOT): string {
	const hash = createHash('sha256');
	const add = (path: string): void => {
		if (statSync(path).isDirectory()) {
			for (const entry of readdirSync(path).sort()) add(join(path, entry));
			return;
		}
		hash.update(relative(root, path)).update('\0').update(readFileSync(path)).update('\0');
	};
	for (const entry of PACK_INPUTS) {
		const path = join(root, entry);
		if (existsSync(path)) add(path);
	}
	return hash.digest('hex');
}

// The last tarball packProject() built, under the hash of its inputs: every suite of a CI run packs the same
// sources, and a build takes 10-20 s of a core.
const PACKED = join(PROJECT_ROOT, '.tmp', 'packed');

/**
 * `npm pack` of the repository, which builds first, or the tarball the last such pack made of the same inputs
 * (`build: false` packs dist/ as it is, `reuse: false` builds anyway); returns the checked tarball's path.
 */
export async function packProject(options: PackProjectOptions = {}): Promise<string> {
	return await withPackLock(async () => {
		const destination = options.destination ?? (await mkdtemp(join(tmpdir(), 'captioning-pack-')));
		try {
			const build = options.build !== false;
			const inputs = build ? packInputsHash() : undefined;
			const kept = inputs && options.reuse !== false ? keptTarball(inputs) : undefined;
			if (kept) {
				const tarball = join(destination, basename(kept));
				await copyFile(kept, tarball);
				return tarball;
			}
			const tarball = await packDirectory(PROJECT_ROOT, destination, { ignoreScripts: !build });
			await assertTarballHasN8nEntries(tarball);
			if (inputs) await keepTarball(inputs, tarball);
			return tarball;
		} catch (error) {
			if (!options.destination) await rm(destination, { recursive: true, force: true });
			throw error;
		}
	});
}

function keptTarball(inputs: string): string | undefined {
	const dir = join(PACKED, inputs);
	const [file] = existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.tgz')) : [];
	return file ? join(dir, file) : undefined;
}

/** Keeps `tarball` as the one packed from `inputs`, in place of any earlier one. */
async function keepTarball(inputs: string, tarball: string): Promise<void> {
	const partial = join(PACKED, `.partial-${process.pid}`);
	await rm(partial, { recursive: true, force: true });
	await mkdir(partial, { recursive: true });
	await copyFile(tarball, join(partial, basename(tarball)));
	for (const entry of readdirSync(PACKED).filter((e) => e !== basename(partial))) {
		await rm(join(PACKED, entry), { recursive: true, force: true });
	}
	await rename(partial, join(PACKED, inputs));
}

/**
 * Builds `dist/` in a copy of the package's sources (not this checkout) with this checkout's tools: `tsc -p
 * tsconfig.build.json`, then the gulp asset copy, the steps every version of the package's build has taken.
 * `afterBuild` runs while the copy still resolves this checkout's node_modules (to load what was built).
 */
export async function buildSources(
	directory: string,
	afterBuild?: () => Promise<void>,
): Promise<void> {
	const link = join(directory, 'node_modules');
	await symlink(join(PROJECT_ROOT, 'node_modules'), link, 'dir');
	try {
		const bin = join(PROJECT_ROOT, 'node_modules', '.bin');
		await run(join(bin, 'tsc'), ['-p', 'tsconfig.build.json'], directory);
		await run(join(bin, 'gulp'), ['build:assets'], directory);
		await afterBuild?.();
	} finally {
		await rm(link);
	}
}

/** Makes sure the clone has `commit`: a shallow clone (CI's checkout) fetches it from origin. */
async function ensureCommit(commit: string): Promise<void> {
	const present = await run('git', ['cat-file', '-e', `${commit}^{commit}`], PROJECT_ROOT).then(
		() => true,
		() => false,
	);
	if (present) return;
	await run('git', ['fetch', '--no-tags', '--depth=1', 'origin', commit], PROJECT_ROOT).catch(
		(error: Error) => {
			throw new Error(
				`commit ${commit} is not in this clone and could not be fetched from origin (a shallow clone: ` +
					`git fetch --unshallow): ${error.message}`,
			);
		},
	);
}

/**
 * The package as it was at `commit` of this repository (an earlier release), built and packed into a temp dir;
 * removePacked() removes it.
 */
export async function packCommit(commit: string): Promise<string> {
	await ensureCommit(commit);
	const root = await mkdtemp(join(tmpdir(), 'captioning-release-'));
	try {
		const sources = join(root, 'sources');
		await mkdir(sources);
		await run(
			'bash',
			['-c', `git -C "$0" archive "$1" | tar -x -C "$2"`, PROJECT_ROOT, commit, sources],
			root,
		);
		await buildSources(sources);
		const tarball = await packDirectory(sources, root, { ignoreScripts: true });
		await assertTarballHasN8nEntries(tarball);
		await rm(sources, { recursive: true, force: true });
		return tarball;
	} catch (error) {
		await rm(root, { recursive: true, force: true });
		throw error;
	}
}

/** Removes the temp folder packProject() made for `tarball`, if there is one. */
export async function removePacked(tarball: string | undefined): Promise<void> {
	if (tarball) await rm(dirname(tarball), { recursive: true, force: true });
}

// A build replaces dist/: two suites (or a suite and `npm run dev`) packing the same clone at once would pack
// each other's dist mid-swap. One packProject at a time per clone.
async function withPackLock<T>(body: () => Promise<T>): Promise<T> {
	const key = createHash('sha256').update(PROJECT_ROOT).digest('hex').slice(0, 12);
	const lock = join(tmpdir(), `n8n-nodes-captioning-pack-${key}.lock`);
	const deadline = Date.now() + 5 * 60_000;
	for (;;) {
		try {
			await mkdir(lock);
			await writeFile(join(lock, 'pid'), String(process.pid), 'utf8');
			break;
		} catch (error) {
			if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
			const holder = Number(await readFile(join(lock, 'pid'), 'utf8').catch(() => ''));
			// a holder that died without cleaning up (SIGKILL); a lock without pid is being created
			if (holder > 0 && !isAlive(holder)) {
				await rm(lock, { recursive: true, force: true });
				continue;
			}
			if (Date.now() > deadline) {
				throw new Error(`${lock} is still held by process ${holder || '?'} after 5 minutes`);
			}
			await new Promise((resolveWait) => setTimeout(resolveWait, 250));
		}
	}
	try {
		return await body();
	} finally {
		await rm(lock, { recursive: true, force: true });
	}
}

/** The repository's package.json. */
export async function projectManifest(): Promise<Record<string, unknown>> {
	return JSON.parse(await readFile(resolve(PROJECT_ROOT, 'package.json'), 'utf8')) as Record<
		string,
		unknown
	>;
}
