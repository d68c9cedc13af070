// Where the model of a contract root lives, and the one place that loads it: models/<ROOT>.json
// (the directory is the config's [model] dir). Every path that trades with the model (a
// backtest request, its queue sessions through the SessionSpec, the live simulation, recomputed
// artifacts) asks here for the model of the root it trades, so "the model for root R" has one
// definition. A root without a file has no model: the error names the root and the command that
// trains one.

import { isAbsolute, join, resolve } from 'node:path';
import { defaultConfigPath, loadedConfigFile } from '../../config/load.ts';
import type { EngineConfig } from '../../config/schema.ts';
import { packageRoot } from '../../core/paths.ts';
import { loadModelFile, type ModelLoad } from './model.ts';

/** Directory of the model files: config `[model] dir`, relative to the package root. */
export function modelDir(config: EngineConfig): string {
  const d = config.model.dir;
  return isAbsolute(d) ? d : join(packageRoot(), d);
}

/** The file name of a root's model in the model directory. */
export function modelFileName(root: string): string {
  return `${root}.json`;
}

/** The path of a root's model file. */
export function modelPath(config: EngineConfig, root: string): string {
  return join(modelDir(config), modelFileName(root));
}

/**
 * The command that writes a root's model where the loaded config looks for it: with that config
 * (its [contracts] may define the root, its [model] dir is where the file goes); the shipped
 * default needs no --config.
 */
export function trainCommand(root: string, configFile = loadedConfigFile()): string {
  const cfg = configFile === null || resolve(configFile) === defaultConfigPath() ? '' : ` --config ${configFile}`;
  return `npm run train -- --root ${root}${cfg}`;
}

/**
 * The model of `root`: models/<ROOT>.json, validated, and trained on that root. Errors name the
 * root, the file and (when there is none) the command that trains one.
 */
export function loadRootModel(config: EngineConfig, root: string): ModelLoad {
  const path = modelPath(config, root);
  const r = loadModelFile(path);
  if (!r.ok) {
    if (r.missing) return { ok: false, error: `no model for ${root}: ${path} does not exist (train one with: ${trainCommand(root)})` };
    return { ok: false, error: `the model for ${root}: ${r.error}` };
  }
  if (!r.model.roots.includes(root)) {
    return {
      ok: false,
      error:
        `the model for ${root}: ${path} holds ${r.model.modelVersion}, trained on ${r.model.roots.join(', ')}, not ${root} (train one ` +
        `with: ${trainCommand(root)})`,
    };
  }
  return r;
}
