// A contract spec from recorded data: DBN instrument definition records (rtype 0x13, the v3
// layout data/dbn/definition.ts reads), and its check against the contract tables.
//
// Fields used (Databento, "Computing tick value and contract notional",
// https://databento.com/docs/examples/instrument-definitions/contract-notional):
// - min_price_increment: the tick size, in 1e-9 price units;
// - min_price_increment_amount / display_factor: the value of one tick in `currency` (both
//   1e-9 fixed point, so the scale cancels). CME may leave tag 1146 (the amount) null: then the
//   tick value must come from a contract table ([contracts.<ROOT>] or the built-in one);
// - currency: USD only (the engine accounts in USD).
// A definition and a table that both know a root must agree on tick size and tick value: a
// disagreement is an error naming both, never a silent merge.

import { UNDEF_PRICE } from '../../data/dbn/constants.ts';
import type { InstrumentDefMsg } from '../../data/dbn/definition.ts';
import { type ContractSpec, ROOT_RE, SYMBOL_RE, tableContract, ticksPerPoint } from '../instruments.ts';

const PRICE_SCALE = 1e9;

/** The root a definition names: its `asset` (Databento's product code), else its symbol's root. */
export function definitionRoot(d: InstrumentDefMsg): string | null {
  if (d.asset && ROOT_RE.test(d.asset)) return d.asset;
  const m = SYMBOL_RE.exec(d.raw_symbol ?? '');
  return m ? m[1] : null;
}

const given = (x: bigint | undefined): x is bigint => x !== undefined && x !== UNDEF_PRICE && x > 0n;

/**
 * The spec of a definition's root: the contract table's when one knows the root (checked against
 * the definition), else the definition's own. Throws naming the field that is missing or at odds.
 */
export function specFromDefinition(d: InstrumentDefMsg, where: string): ContractSpec {
  const root = definitionRoot(d);
  const sym = d.raw_symbol ?? '?';
  if (root === null) throw new Error(`${where}: definition of '${sym}' names no contract root (asset '${d.asset ?? ''}')`);
  const from = `${where}: definition record of ${sym}`;
  if (d.min_price_increment === undefined) throw new Error(`${from}: a DBN v1/v2 definition without min_price_increment (the engine reads v3 definitions)`);
  if (!given(d.min_price_increment)) throw new Error(`${from}: min_price_increment is null, so the tick size is unknown`);
  const tickSize = Number(d.min_price_increment) / PRICE_SCALE;
  const perPoint = ticksPerPoint(tickSize);
  if (perPoint === null) throw new Error(`${from}: min_price_increment ${d.min_price_increment} (tick ${tickSize}) does not divide one point into whole ticks`);
  if (d.currency && d.currency !== 'USD') throw new Error(`${from}: currency ${d.currency}; the engine accounts in USD only`);
  const tickValue = given(d.min_price_increment_amount) && given(d.display_factor) ? Number(d.min_price_increment_amount) / Number(d.display_factor) : null;
  const table = tableContract(root);
  if (table) {
    const odds: string[] = [];
    if (table.tickSize !== tickSize)
      odds.push(`tick_size ${table.tickSize} in ${table.source}, ${tickSize} in the data (min_price_increment ${d.min_price_increment})`);
    if (tickValue !== null && table.tickValue !== tickValue) {
      odds.push(
        `tick value $${table.tickValue} in ${table.source} (point_value ${table.pointValue}), $${tickValue} in the data ` +
          `(min_price_increment_amount ${d.min_price_increment_amount} / display_factor ${d.display_factor})`,
      );
    }
    if (odds.length) throw new Error(`${from} contradicts the contract table: ${odds.join('; ')}. Fix [contracts.${root}] (or remove it to use the data's)`);
    return table;
  }
  if (tickValue === null) {
    throw new Error(
      `${from}: min_price_increment_amount is null (CME may leave tag 1146 empty), so the tick value is unknown: add [contracts.${root}] ` +
        `with point_value to the config`,
    );
  }
  return {
    root,
    product: root,
    tickSize,
    pointValue: tickValue * perPoint,
    tickValue,
    currency: 'USD',
    group: null,
    expiry: null,
    regularOpenNs: null,
    regularCloseNs: null,
    market: null,
    typicalLow: Number.NaN,
    typicalHigh: Number.NaN,
    source: from,
  };
}
