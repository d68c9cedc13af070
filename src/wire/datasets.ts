// What GET /api/datasets answers: the recorded market data a backtest request may name in its
// `dataset` field (files and directories of daily files under <data_dir>/market/).

import { z } from 'zod';

export const datasetSchema = z
  .object({
    name: z
      .string()
      .meta({ description: 'the name a backtest request gives as `dataset` (a file, or a directory of daily files)', examples: ['es-mbo-2024-01'] }),
    kind: z.enum(['file', 'directory']).describe('a single DBN file or a directory of them'),
    files: z.int().describe('DBN files (1 for a file)'),
    dataset: z.string().describe('Databento dataset code from the metadata, e.g. GLBX.MDP3 (several joined by ", ")'),
    schema: z.string().describe('record schema: mbo, mbp-10, ... ("mixed" when the files differ)'),
    symbols: z.array(z.string()).describe('raw symbols the symbology maps (e.g. ESH4)'),
    start: z.iso.datetime().describe('first instant covered (metadata start, UTC)'),
    end: z.iso.datetime().nullable().describe('end of the time covered (metadata end, exclusive; null when open-ended)'),
    records: z.int().describe('records in the data (every file read once and cached)'),
    bytes: z.int().describe('size on disk'),
    error: z.string().nullable().describe('why the data cannot be read (null when it can)'),
  })
  .describe('One recorded dataset.');
export type Dataset = z.infer<typeof datasetSchema>;

export const datasetListSchema = z
  .object({
    dir: z.string().describe('the directory listed (<data_dir>/market)'),
    datasets: z.array(datasetSchema).describe('datasets by name'),
  })
  .describe('Recorded market data available to backtests.');
export type DatasetList = z.infer<typeof datasetListSchema>;
