// n8n's own rule sets (eslint-plugin-n8n-nodes-base) for nodes, credentials and package.json, plus typescript-eslint.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import n8nNodesBase from 'eslint-plugin-n8n-nodes-base';

const n8n = { 'n8n-nodes-base': n8nNodesBase };

export default tseslint.config(
	{ ignores: ['dist/**', 'node_modules/**', 'coverage/**', '**/*.js', '**/*.mjs'] },
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
		rules: n8nNodesBase.configs.nodes.rules,
	},
);
