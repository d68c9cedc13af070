// When the engine requotes after an execution report. An order's end can change the quotes only
// when the order was working (the one quoting its side): the exchange refused or cancelled it,
// and the side must be quoted again at once. The cancel confirmation of an order already
// replaced changes nothing the strategy decides from, so it sends nothing.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ASK, BID, ER_ACK, ER_CANCELED, ER_REJECT, MD_ADD, MD_CANCEL, OM_CANCEL, OM_NEW } from '../../../src/core/events.ts';
import { marketMakerSetup } from '../../../src/strategy/builtin/market-maker.ts';
import { quoteParams } from '../../../src/strategy/setup.ts';
import { MS, OPEN, traderHarness } from '../../helpers/trader-harness.ts';
import { shippedConfigNoModel } from '../../helpers/shipped-config.ts';

const config = shippedConfigNoModel();

function setup() {
  const { e, market, sent, report, openBook } = traderHarness({ strategy: marketMakerSetup(quoteParams(config)) });
  // The opening book, then one event after the open: the engine quotes both sides.
  openBook();
  market(OPEN + MS, MD_ADD, BID, 19_990, 1);
  const opening = sent();
  for (const m of opening) report(OPEN + 2 * MS, ER_ACK, m);
  assert.equal(sent(), [], 'acks send nothing');
  return { e, market, sent, report, opening };
}

test('the engine quotes both sides after the open, one new order each', () => {
  const { opening } = setup();
  assert.equal(
    opening.map((m) => [m.type, m.side]),
    [
      [OM_NEW, BID],
      [OM_NEW, ASK],
    ],
  );
});

test('a working order the exchange refuses is replaced at once, on its side', () => {
  const { sent, report, opening } = setup();
  const bid = opening.find((m) => m.side === BID)!;
  report(OPEN + 3 * MS, ER_REJECT, bid);
  const after = sent();
  assert.equal(
    after.map((m) => [m.type, m.side]),
    [[OM_NEW, BID]],
    'the bid is quoted again, nothing else is sent',
  );
  assert.is(after[0].price, bid.price);
});

test('a working order the exchange cancels is replaced at once, on its side', () => {
  const { sent, report, opening } = setup();
  const ask = opening.find((m) => m.side === ASK)!;
  report(OPEN + 3 * MS, ER_CANCELED, ask);
  assert.equal(
    sent().map((m) => [m.type, m.side]),
    [[OM_NEW, ASK]],
  );
});

test('the cancel confirmation of an order already replaced sends nothing, and the new quotes stand', () => {
  const { market, sent, report, opening } = setup();
  // The touch moves: both sides are cancelled and quoted again.
  market(OPEN + 4 * MS, MD_CANCEL, BID, 20_000, 40);
  market(OPEN + 4 * MS, MD_CANCEL, ASK, 20_001, 40);
  const moved = sent();
  const cancels = moved.filter((m) => m.type === OM_CANCEL);
  const news = moved.filter((m) => m.type === OM_NEW);
  assert.equal(cancels.map((m) => m.id).sort(), opening.map((m) => m.id).sort(), 'both opening orders cancelled');
  assert.is(news.length, 2);
  for (const m of news) report(OPEN + 5 * MS, ER_ACK, m);
  for (const m of opening) report(OPEN + 6 * MS, ER_CANCELED, m);
  assert.equal(sent(), [], 'nothing sent on the confirmations');
  // The next event that changes nothing the strategy decides from sends nothing either.
  market(OPEN + 7 * MS, MD_ADD, BID, 19_990, 1);
  assert.equal(sent(), []);
});

test.run();
