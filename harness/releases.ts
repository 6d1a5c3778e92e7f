// The package's releases, by the commit of this repository that is each one.
/**
 * 0.1.0: the last commit of 2026-11-22, CHANGELOG's [0.1.0] date (the next, 10614a6 of 2026-11-23, starts the
 * work under [Unreleased]); trigger typeVersion 1, action typeVersion 1.
 */
export const RELEASE_0_1_0 = '43e99bcb7b47dd92745601abf223ebdfc2f97fc7';
