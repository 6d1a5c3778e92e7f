// The release workflow's gate (scripts/release-gate.ts), rule by rule, and on the repository as it is.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import {
	changelogSections,
	compareReleases,
	releaseRefusals,
	sectionEntries,
} from '../../scripts/release-gate';

const ROOT = join(__dirname, '..', '..');

/** A changelog as the release steps of docs/development.md leave it: an empty Unreleased above the release. */
const RELEASED_0_2_0 = `# Changelog

Intro paragraph.

## [Unreleased]

## [0.2.0] - 2026-12-01

### Added

- Check and Fix.

## [0.1.0] - 2026-11-22

### Added

- The first nodes.

[Unreleased]: https://github.com/o/r/compare/v0.2.0...HEAD
[0.2.0]: https://github.com/o/r/compare/v0.1.0...v0.2.0
[0.1.0]: https://github.com/o/r/releases/tag/v0.1.0
`;

/** The changelog before that release: the entries still under Unreleased. */
const BEFORE_0_2_0 = `# Changelog

## [Unreleased]

### Added

- Check and Fix.

## [0.1.0] - 2026-11-22

### Added

- The first nodes.
`;

describe('releaseRefusals', () => {
	const wellFormed = {
		tag: 'v0.2.0',
		version: '0.2.0',
		changelog: RELEASED_0_2_0,
		previousChangelog: BEFORE_0_2_0,
	};

	test('accepts a well-formed release: the tag is v + the version, a dated section, Unreleased empty', () => {
		expect(releaseRefusals(wellFormed)).toEqual([]);
	});

	test('accepts a first release, with no commit before it', () => {
		const first = `## [Unreleased]\n\n## [0.1.0] - 2026-11-22\n\n- The first nodes.\n`;
		expect(
			releaseRefusals({
				tag: 'v0.1.0',
				version: '0.1.0',
				changelog: first,
				previousChangelog: undefined,
			}),
		).toEqual([]);
	});

	test("refuses v0.1.0 on today's changelog: already released, and Unreleased has entries", () => {
		expect(
			releaseRefusals({
				tag: 'v0.1.0',
				version: '0.1.0',
				changelog: BEFORE_0_2_0,
				previousChangelog: BEFORE_0_2_0,
			}),
		).toEqual([
			`CHANGELOG.md's [Unreleased] has 1 line(s) of entries (the first: "- Check and Fix."): move them into [0.1.0] or leave them for a later release`,
			'CHANGELOG.md had [0.1.0] before this commit: 0.1.0 is released already, or its release commit is an earlier one (tag that one)',
		]);
	});

	test('refuses a tag without a section', () => {
		expect(
			releaseRefusals({
				...wellFormed,
				tag: 'v0.3.0',
				version: '0.3.0',
				previousChangelog: RELEASED_0_2_0,
			}),
		).toEqual(['CHANGELOG.md has no "## [0.3.0] - YYYY-MM-DD" section']);
	});

	test('refuses a section without a date', () => {
		const undated = RELEASED_0_2_0.replace('## [0.2.0] - 2026-12-01', '## [0.2.0]');
		expect(releaseRefusals({ ...wellFormed, changelog: undated })).toEqual([
			`CHANGELOG.md's [0.2.0] has no date: "## [0.2.0] - YYYY-MM-DD"`,
		]);
	});

	test('refuses a tag while Unreleased has entries, naming the first', () => {
		const pending = RELEASED_0_2_0.replace(
			'## [Unreleased]\n',
			'## [Unreleased]\n\n### Fixed\n\n- A fix that came after.\n- Another.\n',
		);
		expect(releaseRefusals({ ...wellFormed, changelog: pending })).toEqual([
			`CHANGELOG.md's [Unreleased] has 2 line(s) of entries (the first: "- A fix that came after."): move them into [0.2.0] or leave them for a later release`,
		]);
	});

	test('refuses a tag that is not v + package.json version', () => {
		expect(releaseRefusals({ ...wellFormed, tag: '0.2.0' })).toEqual([
			"tag 0.2.0 is not v0.2.0, package.json's version with a v",
		]);
		expect(releaseRefusals({ ...wellFormed, tag: 'v0.2.1' })).toEqual([
			"tag v0.2.1 is not v0.2.0, package.json's version with a v",
		]);
	});

	test('refuses a version whose section existed before this commit (a release tagged twice)', () => {
		expect(releaseRefusals({ ...wellFormed, previousChangelog: RELEASED_0_2_0 })).toEqual([
			'CHANGELOG.md had [0.2.0] before this commit: 0.2.0 is released already, or its release commit is an earlier one (tag that one)',
		]);
	});

	test('refuses a version not above the last released one', () => {
		const backwards = RELEASED_0_2_0.replace('## [0.2.0] - 2026-12-01', '## [0.0.9] - 2026-12-01');
		expect(
			releaseRefusals({
				tag: 'v0.0.9',
				version: '0.0.9',
				changelog: backwards,
				previousChangelog: BEFORE_0_2_0,
			}),
		).toEqual(['0.0.9 is not above 0.1.0, the last released version']);
	});

	test('refuses a prerelease: it would take npm’s latest tag', () => {
		const beta = RELEASED_0_2_0.replace('## [0.2.0]', '## [0.2.0-beta.1]');
		expect(
			releaseRefusals({
				tag: 'v0.2.0-beta.1',
				version: '0.2.0-beta.1',
				changelog: beta,
				previousChangelog: BEFORE_0_2_0,
			}),
		).toEqual([
			"package.json's version 0.2.0-beta.1 is not x.y.z: the workflow publishes to npm's latest tag",
		]);
	});
});

describe('the repository as it is', () => {
	const version = (
		JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }
	).version;
	const changelog = readFileSync(join(ROOT, 'CHANGELOG.md'), 'utf8');

	test('refuses v0.1.0: 0.1.0 has had its section since it was released', () => {
		// the file as it is stands for the one before: [0.1.0] has been in it since 2026-11-22
		const refusals = releaseRefusals({
			tag: 'v0.1.0',
			version,
			changelog,
			previousChangelog: changelog,
		});
		expect(refusals).toContain(
			version === '0.1.0'
				? 'CHANGELOG.md had [0.1.0] before this commit: 0.1.0 is released already, or its release commit is an earlier one (tag that one)'
				: `tag v0.1.0 is not v${version}, package.json's version with a v`,
		);
	});

	test("package.json's version has a section in CHANGELOG.md", () => {
		expect(changelogSections(changelog).map((s) => s.name)).toContain(version);
	});
});

describe('the changelog reader', () => {
	test('sections in order, with their dates; entries without blank lines, headings or link definitions', () => {
		const sections = changelogSections(RELEASED_0_2_0);
		expect(sections.map((s) => [s.name, s.date])).toEqual([
			['Unreleased', undefined],
			['0.2.0', '2026-12-01'],
			['0.1.0', '2026-11-22'],
		]);
		expect(sections.map(sectionEntries)).toEqual([
			[],
			['- Check and Fix.'],
			['- The first nodes.'],
		]);
	});

	test('versions compare by number, not by text', () => {
		expect(['0.10.0', '0.2.0', '1.0.0', '0.2.1'].sort(compareReleases)).toEqual([
			'0.2.0',
			'0.2.1',
			'0.10.0',
			'1.0.0',
		]);
	});
});
