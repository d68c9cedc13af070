// The shipped config (config/config.toml) as a test's base, with the model off. The shipped config
// quotes on the model (the held-out comparison chose it: docs/strategy-comparison.md); the tests
// built on it exercise the engine through the built-in market maker without the model, whose
// fills, rejects and kill-switch trips are what they check. A test that wants the model asks for
// it (useML: true in its request, or use_ml = true where it configures the live simulation).
import { loadConfig } from '../../src/config/load.ts';
import type { EngineConfig } from '../../src/config/schema.ts';

export function shippedConfigNoModel(): EngineConfig {
  const { config } = loadConfig({});
  config.strategy.use_ml = false;
  return config;
}
