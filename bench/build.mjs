// Bundles the benchmark suite into dist/bench/ with esbuild, the way the engine itself ships
// (dist/engine.js, dist/workers/*.js): measured code must run bundled, because tsx turns every
// imported constant into a getter call and slows hot loops by up to ~40%. npm packages stay
// external (resolved from node_modules at run time), as in the main build.
//   node bench/build.mjs        (npm run bench runs it after npm run build)
import { build } from 'esbuild';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
await build({
  absWorkingDir: root,
  // inference.ts is its own bundle: inlined into run.js, its "run as a script" check would fire there.
  entryPoints: ['bench/run.ts', 'bench/inference.ts', 'bench/bare-server.ts', 'bench/sse-clients.ts', 'bench/replay.ts', 'bench/pipeline-worker.ts'],
  outdir: 'dist/bench',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  packages: 'external',
  sourcemap: true,
  minifySyntax: true, // as the engine's build.mjs: constants inlined in hot loops
  logLevel: 'warning',
});
