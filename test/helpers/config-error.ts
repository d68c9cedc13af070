// The ConfigError a config text must throw (tests of the config's error messages).
import * as assert from 'uvu/assert';
import { ConfigError, parseConfig } from '../../src/config/load.ts';

export function configError(text: string): ConfigError {
  try {
    parseConfig(text, 'config.toml');
  } catch (e) {
    assert.instance(e, ConfigError);
    return e as ConfigError;
  }
  assert.unreachable(`expected a ConfigError for:\n${text}`);
  throw new Error('unreachable');
}
