// The project's own lint, beside n8n's template (eslint.config.mjs, which `n8n-node lint` runs on the package's
// sources in strict mode): typescript-eslint on every TypeScript file (tests, harness, sandbox, bench and scripts
// included), and n8n's rule sets on what ships, with the full eslint-plugin-n8n-nodes-base sets and the strict
// community rules (@n8n/eslint-plugin-community-nodes, cloud-eligible set). Run by `npm run lint` with --config.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import n8nNodesBase from 'eslint-plugin-n8n-nodes-base';
import { n8nCommunityNodesPlugin } from '@n8n/eslint-plugin-community-nodes';

const n8n = { 'n8n-nodes-base': n8nNodesBase };

export default tseslint.config(
	{ ignores: ['dist/**', 'node_modules/**', 'coverage/**', '.tmp/**', '**/*.js', '**/*.mjs'] },
	{
		files: ['**/*.ts'],
		extends: [js.configs.recommended, ...tseslint.configs.recommended],
		rules: {
			'@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
		},
	},
	{
		files: ['package.json'],
		languageOptions: { parser: tseslint.parser },
		plugins: n8n,
		rules: n8nNodesBase.configs.community.rules,
	},
	{
		files: ['credentials/**/*.ts'],
		plugins: n8n,
		rules: {
			...n8nNodesBase.configs.credentials.rules,
			// the rule's own doc: "only applicable to nodes in the main repository"; ours is a full URL
			'n8n-nodes-base/cred-class-field-documentation-url-miscased': 'off',
		},
	},
	{
		files: ['nodes/**/*.ts'],
		plugins: n8n,
		rules: {
			...n8nNodesBase.configs.nodes.rules,
			// as n8n's own package scanner: the community rules want NodeConnectionTypes.Main, these want 'main'
			'n8n-nodes-base/node-class-description-inputs-wrong-regular-node': 'off',
			'n8n-nodes-base/node-class-description-outputs-wrong': 'off',
		},
	},
	{
		files: ['package.json', 'nodes/**/*.ts', 'credentials/**/*.ts'],
		languageOptions: { parser: tseslint.parser },
		plugins: n8nCommunityNodesPlugin.configs.recommended.plugins,
		rules: n8nCommunityNodesPlugin.configs.recommended.rules,
	},
);
