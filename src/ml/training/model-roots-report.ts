// The held-out evaluation of every shipped model as Markdown (docs/model-roots.md is this output
// between its markers; test/unit/ml/ml-roots-doc.test.ts keeps the two equal). The figures are the ones
// `npm run train` recorded in each file's metrics (6 decimals) on that root's held-out sessions:
// the same table the training run prints, one per root, and a summary across roots.

export const DOC = join(packageRoot(), 'docs', 'model-roots.md');
export const BEGIN = '<!-- model-roots table: npm run model-roots -- --write -->';
export const END = '<!-- end of the model-roots table -->';

/** The shipped model of every built-in root; throws naming the first that does not load. */
export function shippedModels(): ModelFile[] {
  return Object.keys(BUILTIN_CONTRACTS).map((root) => {
    const r = loadModelFile(join(packageRoot(), 'models', modelFileName(root)));
    if (!r.ok) throw new Error(r.error);
    return r.model;
  });
}

/** `doc` with the text between the markers replaced by `table`. */
export function withTable(doc: string, table: string): string {
  const a = doc.indexOf(BEGIN);
  const b = doc.indexOf(END);
  if (a < 0 || b < a) throw new Error(`${DOC}: the markers ${BEGIN} and ${END} are missing`);
  return `${doc.slice(0, a + BEGIN.length)}\n\n${table}\n${doc.slice(b)}`;
}

import { join } from 'node:path';
import { packageRoot } from '../../core/paths.ts';
import { BUILTIN_CONTRACTS } from '../../market/instruments.ts';
import type { Metrics } from './metrics.ts';
import { loadModelFile, type ModelFile } from '../inference/model.ts';
import { modelFileName } from '../inference/model-store.ts';
import { SIGNAL_NAMES } from './signal-baselines.ts';
import { bestSignal, REPORT_ROWS, type SetMetrics } from './train-report.ts';

const fix = (x: number | null, d: number) => (x === null ? 'n/a' : (Math.round(x * 10 ** d) / 10 ** d + 0).toFixed(d));
const pct = (x: number | null) => (x === null ? 'n/a' : `${(x * 100).toFixed(2)}%`);

function row(cells: string[]): string {
  return `| ${cells.join(' | ')} |`;
}

/** Markdown for the models (one per root, in the order given). */
export function modelRootsMarkdown(models: ModelFile[]): string {
  const out: string[] = [];
  out.push(
    row(['root', 'model', 'held-out samples', 'model MSE', 'model R²', 'best untrained signal', 'its MSE', 'its R²', 'model beats it', 'ridge linear R²']),
  );
  out.push(row(['---', '---', '---:', '---:', '---:', '---', '---:', '---:', '---', '---:']));
  for (const m of models) {
    const t = m.metrics.test as SetMetrics;
    const b = bestSignal(t);
    out.push(
      row([
        m.roots.join(', '),
        `\`${m.modelVersion}\``,
        t.model.samples.toLocaleString('en-US'),
        fix(t.model.mse, 5),
        fix(t.model.r2, 4),
        b.name,
        fix(b.metrics.mse, 5),
        fix(b.metrics.r2, 4),
        b.modelBeatsIt ? `yes (MSE −${pct(1 - t.model.mse / b.metrics.mse)})` : '**no**',
        fix(t.baselines.ridgeLinear.r2, 4),
      ]),
    );
  }
  for (const m of models) {
    const t = m.metrics.test as SetMetrics;
    const b = bestSignal(t);
    const sessions = (m.training.data as { test: { sessions: { date: string; seed: number }[] } }).test.sessions;
    out.push('', `### ${m.roots.join(', ')}: \`${m.modelVersion}\``, '');
    out.push(
      `Held-out sessions ${sessions.map((s) => `${s.date}/seed ${s.seed}`).join(', ')}; best epoch ${m.training.bestEpoch}; standard ` +
        `deviation of the label on the training sessions ${fix(m.training.labelStd as number, 3)} ticks.`,
      '',
    );
    out.push(row(['predictor', 'MSE', 'R²', 'corr', 'dir.acc', 'top10%', 'top10%mv']));
    out.push(row(['---', '---:', '---:', '---:', '---:', '---:', '---:']));
    for (const [label, key] of REPORT_ROWS) {
      const x: Metrics = key === null ? t.model : t.baselines[key];
      out.push(
        row([
          label,
          fix(x.mse, 5),
          fix(x.r2, 5),
          fix(x.corr, 4),
          pct(x.directionalAccuracy),
          pct(x.topDecileDirectionalAccuracy),
          fix(x.topDecileMeanSignedMove ?? 0, 4),
        ]),
      );
    }
    out.push(
      '',
      b.modelBeatsIt
        ? `The model beats the best untrained signal (${b.name}): MSE ${fix(t.model.mse, 5)} vs ${fix(b.metrics.mse, 5)}, R² ` +
            `${fix(t.model.r2, 4)} vs ${fix(b.metrics.r2, 4)}.`
        : `**The model does NOT beat the best untrained signal (${b.name})**: MSE ${fix(t.model.mse, 5)} vs ${fix(b.metrics.mse, 5)}.`,
    );
    // MSE is what the model is trained and judged on; where a signal is surer of the direction of
    // its strongest calls, say so rather than let the verdict read as "better on every measure".
    const top = (x: Metrics) => x.topDecileDirectionalAccuracy ?? 0;
    const surer = SIGNAL_NAMES.filter((n) => top(t.baselines[n]) > top(t.model));
    if (surer.length) {
      const best = surer.reduce((x, y) => (top(t.baselines[y]) > top(t.baselines[x]) ? y : x));
      out.push(
        `On the top 10 % of |prediction| the ${best} signal gets the direction right more often than the model ` +
          `(${pct(top(t.baselines[best]))} vs ${pct(top(t.model))}).`,
      );
    }
  }
  return out.join('\n') + '\n';
}
