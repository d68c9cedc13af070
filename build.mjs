// Bundles the entry points into dist/: dist/engine.js, dist/dashboard.js and dist/workers/*.js.
// npm packages stay external (resolved from node_modules at run time); only our code is bundled.
import { build } from 'esbuild';
import { existsSync, readdirSync } from 'node:fs';

const common = { bundle: true, platform: 'node', format: 'esm', target: 'node20', packages: 'external', sourcemap: true, logLevel: 'warning' };
const entries = ['src/engine.ts', 'src/dashboard.ts'].filter((f) => existsSync(f));
const workers = readdirSync('workers').filter((f) => f.endsWith('.ts')).map((f) => `workers/${f}`);
await build({ ...common, entryPoints: entries, outdir: 'dist' });
if (workers.length) await build({ ...common, entryPoints: workers, outdir: 'dist/workers' });
