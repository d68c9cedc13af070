// compose.yaml for the session queue: a redis service with a volume and no published port, a
// worker service that scales (no container name, no port) and serves redis://redis:6379, the
// engine's QUEUE_URL off by default; .ci/run installs redis-server like chromium.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { ROOT } from '../../helpers/cli.ts';

const compose: any = parseYaml(readFileSync(join(ROOT, 'compose.yaml'), 'utf8'));

test('redis: pinned image, data in the redis-data volume, no published port', () => {
  const r = compose.services.redis;
  assert.match(r.image, /^redis:\d+\.\d+\.\d+$/);
  assert.equal(r.volumes, [{ type: 'volume', source: 'redis-data', target: '/data' }]);
  assert.is(r.ports, undefined, 'Redis stays on the compose network');
  assert.ok('redis-data' in compose.volumes);
});

test('worker: the engine image as a queue worker of redis://redis:6379, scalable', () => {
  const w = compose.services.worker;
  assert.is(w.image, compose.services.engine.image);
  assert.equal(w.command, ['node', 'dist/engine.js', '--worker', '--queue', 'redis://redis:6379']);
  assert.is(w.ports, undefined, 'no port: --scale worker=N would clash');
  assert.is(w.container_name, undefined, 'no fixed name: --scale worker=N needs distinct ones');
  assert.equal(w.depends_on, { redis: { condition: 'service_healthy' } });
  assert.is(compose.services.engine.environment.QUEUE_URL, '${QUEUE_URL:-}', 'the engine uses its own pool unless QUEUE_URL is set');
});

test('.ci/run installs redis-server when missing', () => {
  const ci = readFileSync(join(ROOT, '.ci/run'), 'utf8');
  assert.match(ci, /command -v redis-server >\/dev\/null 2>&1 \|\| need\+=\(redis-server\)/);
});

test.run();
