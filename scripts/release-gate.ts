// The release workflow's gate (.github/workflows/release.yml): may this tag publish? `npm run release-gate --
// v1.2.3` runs it on this checkout; the rules are pure functions, tested in test/unit/releaseGate.test.ts.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface ReleaseInputs {
	tag: string;
	/** package.json's version at the tagged commit. */
	version: string;
	/** CHANGELOG.md at the tagged commit. */
	changelog: string;
	/** CHANGELOG.md as the commit before the release had it; undefined when there is none (a first commit). */
	previousChangelog: string | undefined;
}

export interface ChangelogSection {
	/** What the heading's brackets hold: `Unreleased` or a version. */
	name: string;
	/** The heading's date (`## [1.2.3] - 2026-12-01`), if it has one. */
	date?: string;
	/** The lines up to the next `## ` heading. */
	lines: string[];
}

const HEADING = /^## \[([^\]]+)\](?:\s+-\s+(.*?))?\s*$/;
const LINK_DEFINITION = /^\[[^\]]+\]:\s/;
const RELEASE_VERSION = /^(\d+)\.(\d+)\.(\d+)$/;

/** The `## [...]` sections of a Keep a Changelog file, in the file's order. */
export function changelogSections(text: string): ChangelogSection[] {
	const sections: ChangelogSection[] = [];
	for (const line of text.split(/\r?\n/)) {
		const heading = HEADING.exec(line);
		if (heading) sections.push({ name: heading[1], date: heading[2] || undefined, lines: [] });
		else if (line.startsWith('## ')) sections.push({ name: line.slice(3).trim(), lines: [] });
		else sections.at(-1)?.lines.push(line);
	}
	return sections;
}

/** A section's entries: its lines but blank ones, `###` headings and link definitions. */
export function sectionEntries(section: ChangelogSection): string[] {
	return section.lines
		.map((line) => line.trim())
		.filter((line) => line !== '' && !line.startsWith('#') && !LINK_DEFINITION.test(line));
}

/** The numbers of an `x.y.z` version; undefined for anything else (a prerelease included). */
export function releaseNumbers(version: string): [number, number, number] | undefined {
	const match = RELEASE_VERSION.exec(version);
	return match ? [Number(match[1]), Number(match[2]), Number(match[3])] : undefined;
}

/** Negative, zero or positive as `a` is below, equal to or above `b` (both `x.y.z`). */
export function compareReleases(a: string, b: string): number {
	const [x, y] = [releaseNumbers(a), releaseNumbers(b)];
	if (!x || !y) throw new Error(`not an x.y.z version: ${x ? b : a}`);
	return x[0] - y[0] || x[1] - y[1] || x[2] - y[2];
}

/** The released versions a changelog names: its sections' x.y.z headings. */
function releasedVersions(changelog: string): string[] {
	return changelogSections(changelog)
		.map((section) => section.name)
		.filter((name) => releaseNumbers(name) !== undefined);
}

/** Why the tag may not publish; empty when it may. */
export function releaseRefusals(inputs: ReleaseInputs): string[] {
	const { tag, version, changelog, previousChangelog } = inputs;
	const refusals: string[] = [];
	if (!releaseNumbers(version)) {
		// `npm publish` without --tag gives any version npm's `latest` tag, a prerelease included
		refusals.push(
			`package.json's version ${version} is not x.y.z: the workflow publishes to npm's latest tag`,
		);
	}
	if (tag !== `v${version}`) {
		refusals.push(`tag ${tag} is not v${version}, package.json's version with a v`);
	}
	const sections = changelogSections(changelog);
	const section = sections.find((s) => s.name === version);
	if (!section) {
		refusals.push(`CHANGELOG.md has no "## [${version}] - YYYY-MM-DD" section`);
	} else if (!/^\d{4}-\d{2}-\d{2}$/.test(section.date ?? '')) {
		refusals.push(`CHANGELOG.md's [${version}] has no date: "## [${version}] - YYYY-MM-DD"`);
	}
	const unreleased = sections.find((s) => s.name.toLowerCase() === 'unreleased');
	const pending = unreleased ? sectionEntries(unreleased) : [];
	if (pending.length > 0) {
		refusals.push(
			`CHANGELOG.md's [Unreleased] has ${pending.length} line(s) of entries (the first: ` +
				`"${pending[0].slice(0, 80)}"): move them into [${version}] or leave them for a later release`,
		);
	}
	if (previousChangelog !== undefined && releasedVersions(previousChangelog).includes(version)) {
		refusals.push(
			`CHANGELOG.md had [${version}] before this commit: ${version} is released already, or its release ` +
				`commit is an earlier one (tag that one)`,
		);
	} else if (releaseNumbers(version)) {
		const earlier = [...releasedVersions(previousChangelog ?? ''), ...releasedVersions(changelog)]
			.filter((v) => v !== version)
			.sort(compareReleases);
		const last = earlier.at(-1);
		if (last && compareReleases(version, last) <= 0) {
			refusals.push(`${version} is not above ${last}, the last released version`);
		}
	}
	return refusals;
}

function git(args: string[]): string {
	return execFileSync('git', args, {
		cwd: ROOT,
		encoding: 'utf8',
		stdio: ['ignore', 'pipe', 'pipe'],
	});
}

const ROOT = join(__dirname, '..');

/**
 * CHANGELOG.md before the release: at HEAD's parent once the release is committed (the workflow checks out the
 * tagged commit), at HEAD while the working tree's CHANGELOG.md differs from it (a release not yet committed).
 */
function changelogBefore(current: string): string | undefined {
	if (git(['rev-parse', '--is-shallow-repository']).trim() === 'true') {
		throw new Error(
			'a shallow clone has no history to read earlier releases from (fetch-depth: 0)',
		);
	}
	const atHead = git(['show', 'HEAD:CHANGELOG.md']);
	if (atHead !== current) return atHead;
	const [, ...parents] = git(['rev-list', '--parents', '-n', '1', 'HEAD']).trim().split(' ');
	return parents.length > 0 ? git(['show', `${parents[0]}:CHANGELOG.md`]) : undefined;
}

function main(): void {
	const tag = process.argv[2] ?? process.env.GITHUB_REF_NAME;
	if (!tag) throw new Error('usage: npm run release-gate -- v<version> (or GITHUB_REF_NAME)');
	const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
		version: string;
	};
	const changelog = readFileSync(join(ROOT, 'CHANGELOG.md'), 'utf8');
	const refusals = releaseRefusals({
		tag,
		version,
		changelog,
		previousChangelog: changelogBefore(changelog),
	});
	if (refusals.length > 0) {
		process.stderr.write(`release gate: ${tag} may not publish:\n- ${refusals.join('\n- ')}\n`);
		process.exitCode = 1;
		return;
	}
	process.stdout.write(`release gate: ${tag} may publish ${version}\n`);
}

if (require.main === module) main();
