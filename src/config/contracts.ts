// The contract specs a config defines, in one place for every thread that needs them (the
// loader, the live simulation and its workers): the [contracts] tables over the built-in ones,
// and the [market] profile file's profile on its root's spec (profile-file.ts).

import { type ContractSpec, contractsOf } from '../market/instruments.ts';
import { withSelectedProfile } from '../market/profile-file.ts';
import type { EngineConfig } from './schema.ts';

/** The config's specs by root: its [contracts] roots and the root of its [market] profile. */
export function configContracts(c: Pick<EngineConfig, 'contracts' | 'market'>): Record<string, ContractSpec> {
  return withSelectedProfile(contractsOf(c.contracts), c.market?.profile);
}
