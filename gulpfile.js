// Copies the icons and the codex files (*.node.json) next to the compiled nodes, where n8n looks for them.
const { src, dest } = require('gulp');

function buildAssets() {
	return src(['nodes/**/*.{png,svg,json}', 'credentials/**/*.{png,svg}'], { base: '.', encoding: false }).pipe(
		dest(process.env.CAPTIONING_BUILD_OUT || 'dist'),
	);
}

exports['build:assets'] = buildAssets;
