import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { httpToolsFromSection } from '../app/http-tools.ts';
import type { PayloadOf } from '../core/ledger/index.ts';
import { mcpToolDescriptor } from '../core/mcp/index.ts';
import type { RunState } from '../core/run/index.ts';
import { checkProposal } from '../core/run/index.ts';
import type { ToolEffect } from '../core/tools/index.ts';
import type { ToolDefinition } from '../ports/index.ts';
import { spyTool } from '../testing/spy-tools.ts';
import type { Effects } from './effects.ts';
import { simulatedEffects, simulatedMode } from './simulated-effects.ts';
import { parseToolDefinition, ToolRegistry } from './tool-registry.ts';

/**
 * What an author means a tool to be: its effect, whether it is destructive, a fixed cost per call
 * and whether it moves the amount of its `amount_usd` argument.
 */
interface Intent {
  readonly effect: ToolEffect;
  readonly destructive: boolean;
  readonly fixedCents: number;
  readonly fromArg: boolean;
}

/** How the cost is written: faithfully, or in a form Keel does not know (which must be refused). */
const COST_FORMS = {
  shorthand: true,
  object: true,
  'fixed-key': false,
  'usd-text': false,
  'third-decimal': false,
  'misspelt-key': false,
  'arg-path': false,
  'arg-misspelt': false,
} as const;
/** How the `amount_usd` argument is declared when the cost moves it. */
const ARGS_FORMS = {
  'required-number': true,
  'required-integer': true,
  'free-form': true,
  'optional-number': false,
  'text-typed': false,
  untyped: false,
  'other-name': false,
} as const;
/** How the flags are written. */
const FLAG_FORMS = {
  'as-is': true,
  'destructive-text': false,
  'effect-caps': false,
  'extra-key': false,
} as const;

type CostForm = keyof typeof COST_FORMS;
type ArgsForm = keyof typeof ARGS_FORMS;
type FlagForm = keyof typeof FLAG_FORMS;

const dollarsText = (c: number) => `${Math.floor(c / 100)}.${String(c % 100).padStart(2, '0')}`;

function costOf(i: Intent, form: CostForm): unknown {
  const fixed = Number(dollarsText(i.fixedCents));
  const arg = i.fromArg ? { fromArg: 'amount_usd' } : {};
  switch (form) {
    case 'shorthand':
      return i.fromArg ? { fixedUsd: fixed, ...arg } : fixed;
    case 'object':
      return { ...(i.fixedCents > 0 ? { fixedUsd: fixed } : {}), ...arg };
    case 'fixed-key':
      return { fixed, ...arg };
    case 'usd-text':
      return { fixedUsd: dollarsText(i.fixedCents), ...arg };
    case 'third-decimal':
      return { fixedUsd: Number(`${dollarsText(i.fixedCents)}5`), ...arg };
    case 'misspelt-key':
      return { fixedUSD: fixed, ...arg };
    case 'arg-path':
      return { fixedUsd: fixed, fromArg: 'payment.amount_usd' };
    case 'arg-misspelt':
      return { fixedUsd: fixed, fromArgs: 'amount_usd' };
  }
}

function argsOf(i: Intent, form: ArgsForm): Record<string, unknown> {
  const amount = (schema: object, required = true) => ({
    type: 'object',
    properties: { amount_usd: schema, note: { type: 'string' } },
    ...(required ? { required: ['amount_usd'] } : {}),
  });
  if (!i.fromArg) return amount({ type: 'number' }, false);
  switch (form) {
    case 'required-number':
      return amount({ type: 'number' });
    case 'required-integer':
      return amount({ type: 'integer' });
    case 'free-form':
      return { type: 'object' };
    case 'optional-number':
      return amount({ type: 'number' }, false);
    case 'text-typed':
      return amount({ type: 'string' });
    case 'untyped':
      return amount({});
    case 'other-name':
      return { type: 'object', properties: { amount: { type: 'number' } }, required: ['amount'] };
  }
}

function flagsOf(i: Intent, form: FlagForm): Record<string, unknown> {
  const flags = { effect: i.effect, destructive: i.destructive };
  switch (form) {
    case 'as-is':
      return flags;
    case 'destructive-text':
      return { ...flags, destructive: String(i.destructive) };
    case 'effect-caps':
      return { ...flags, effect: i.effect.toUpperCase() };
    case 'extra-key':
      return { ...flags, readOnly: i.effect === 'read' };
  }
}

interface Declared {
  readonly intent: Intent;
  readonly cost: CostForm;
  readonly args: ArgsForm;
  readonly flags: FlagForm;
}

const declared: fc.Arbitrary<Declared> = fc.record({
  intent: fc.record({
    effect: fc.constantFrom<ToolEffect>('read', 'write', 'external'),
    destructive: fc.boolean(),
    fixedCents: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 100_000 })),
    fromArg: fc.boolean(),
  }),
  cost: fc.constantFrom(...(Object.keys(COST_FORMS) as CostForm[])),
  args: fc.constantFrom(...(Object.keys(ARGS_FORMS) as ArgsForm[])),
  flags: fc.constantFrom(...(Object.keys(FLAG_FORMS) as FlagForm[])),
});

/** A form that keeps the author's meaning exactly (only such may be accepted). */
function faithful(d: Declared): boolean {
  return COST_FORMS[d.cost] && (!d.intent.fromArg || ARGS_FORMS[d.args]) && FLAG_FORMS[d.flags];
}

const consistent = (i: Intent) => !(i.effect === 'read' && (i.destructive || i.fromArg));

const handler = () => ({ ok: true });

/** A tool pack's definition of the declaration. */
function viaPack(d: Declared): ToolDefinition | undefined {
  const def = {
    name: 'tool',
    description: 'generated',
    args: argsOf(d.intent, d.args),
    ...flagsOf(d.intent, d.flags),
    idempotent: true,
    scopes: [],
    cost: costOf(d.intent, d.cost),
    handler,
  };
  try {
    return parseToolDefinition(def);
  } catch {
    return undefined;
  }
}

/** A tools file's HTTP tool of the declaration. */
function viaFile(d: Declared): ToolDefinition | undefined {
  const entry = {
    name: 'tool',
    method: d.intent.effect === 'read' ? 'GET' : 'POST',
    url: 'http://127.0.0.1:9/tool',
    ...(d.intent.effect === 'read' ? {} : { idempotencyHeader: 'Idempotency-Key' }),
    args: argsOf(d.intent, d.args),
    ...flagsOf(d.intent, d.flags),
    cost: costOf(d.intent, d.cost),
  };
  try {
    const [t] = httpToolsFromSection([entry], 'tools.yaml');
    return parseToolDefinition(t);
  } catch {
    return undefined;
  }
}

/** An MCP server's tool, flags from its annotations, the cost from the tools file's override. */
function viaMcp(d: Declared): ToolDefinition | undefined {
  const i = d.intent;
  const annotations =
    i.effect === 'read'
      ? { readOnlyHint: true, destructiveHint: i.destructive }
      : { openWorldHint: i.effect === 'external', destructiveHint: i.destructive };
  try {
    const descriptor = mcpToolDescriptor(
      'srv',
      { name: 'tool', inputSchema: argsOf(i, d.args), annotations },
      { cost: costOf(i, d.cost) as never },
    );
    return parseToolDefinition({ ...descriptor, handler });
  } catch {
    return undefined;
  }
}

const RANK = { read: 0, write: 1, external: 2 } as const;

/**
 * The decision the intended declaration calls for: a cost from the argument needs a number; the
 * call's cost (fixed plus the argument's magnitude) within the cap; a destructive tool waits for
 * a person unless approved or the version is AUTONOMOUS.
 */
function intendedAllows(
  i: Intent,
  amount: { readonly cents: number; readonly isNumber: boolean },
  capCents: number,
  approved: boolean,
  status: string,
) {
  if (i.fromArg && !amount.isNumber) return { allowed: false } as const;
  const cost = i.fixedCents + (i.fromArg ? Math.abs(amount.cents) : 0);
  if (cost > capCents) return { allowed: false } as const;
  if (i.destructive && !approved && status !== 'AUTONOMOUS') return { allowed: false } as const;
  return { allowed: true, cost } as const;
}

const call = fc.record({
  amountCents: fc.integer({ min: -10_000_000, max: 10_000_000 }),
  form: fc.constantFrom('number', 'text', 'absent'),
  capCents: fc.integer({ min: 0, max: 20_000_000 }),
  approved: fc.boolean(),
  status: fc.constantFrom('DRAFT', 'TESTING', 'LIVE', 'AUTONOMOUS'),
});

describe('registration: no accepted declaration weakens a check', () => {
  it('accepts exactly the faithful, consistent declarations, the same in a tool pack and a tools file', () => {
    fc.assert(
      fc.property(declared, (d) => {
        const pack = viaPack(d);
        const file = viaFile(d);
        const expected = faithful(d) && consistent(d.intent);
        assert.equal(pack !== undefined, expected, `tool pack: ${JSON.stringify(d)}`);
        assert.equal(file !== undefined, expected, `tools file: ${JSON.stringify(d)}`);
        if (pack && file) assert.deepEqual(file.cost, pack.cost, 'both formats read the cost alike');
      }),
      { numRuns: 3000 },
    );
  });

  it('lets a call reach a handler only where the intended declaration would allow it, at its exact cost', () => {
    fc.assert(
      fc.property(declared, call, fc.constantFrom('pack', 'file', 'mcp'), (d, c, via) => {
        const tool = via === 'pack' ? viaPack(d) : via === 'file' ? viaFile(d) : viaMcp(d);
        if (!tool) return;
        const i = d.intent;
        // Never less cautious than intended (an MCP tool saying read-only and destructive is not a read).
        assert.ok(RANK[tool.effect] >= RANK[i.effect], `effect ${tool.effect} below ${i.effect}`);
        assert.ok(tool.destructive || !i.destructive, 'a destructive tool registered as not destructive');
        // Nothing but an intended, non-destructive read is ever called live in a simulated run.
        if (simulatedMode(tool, 'live') === 'live') assert.ok(i.effect === 'read' && !i.destructive);

        // The amount as JSON carries it: a 2-decimal literal (negated exactly), text, or nothing.
        const literal = dollarsText(Math.abs(c.amountCents));
        const amount =
          c.form === 'number'
            ? c.amountCents < 0
              ? -Number(literal)
              : Number(literal)
            : c.form === 'text'
              ? literal
              : undefined;
        const args = { ...(amount !== undefined ? { amount_usd: amount } : {}), note: 'x' };
        const decision = checkProposal({
          tool,
          args,
          stepsTaken: 0,
          maxSteps: 10,
          spentCents: 0,
          capCents: c.capCents,
          versionStatus: c.status,
          approved: c.approved,
        });
        if (decision.outcome !== 'allow') return;
        const intended = intendedAllows(
          i,
          { cents: c.amountCents, isNumber: c.form === 'number' },
          c.capCents,
          c.approved,
          c.status,
        );
        assert.ok(
          intended.allowed,
          `allowed where the intended declaration refuses: ${JSON.stringify({ d, c })}`,
        );
        assert.equal(decision.costCents, intended.cost, 'the cost counted is the intended one, to the cent');
      }),
      { numRuns: 4000 },
    );
  });
});

describe('registration', () => {
  it('keeps the normalised definition: cost: 5 is {fixedUsd: 5} in the catalog and the checks', () => {
    const reg = new ToolRegistry([{ ...spyTool('pay'), cost: 5 as never }]);
    assert.deepEqual(reg.get('pay')?.cost, { fixedUsd: 5 });
    assert.deepEqual(reg.catalog()[0]?.cost, { fixedUsd: 5 });
  });

  it('refuses a definition whose functions are not functions, or a misspelt one', () => {
    assert.throws(
      () => new ToolRegistry([{ ...spyTool('t'), handler: 'x' as never }]),
      /tool "t": handler: expected a function/,
    );
    assert.throws(
      () => new ToolRegistry([{ ...spyTool('t'), simulate: {} as never }]),
      /tool "t": simulate: expected a function/,
    );
    assert.throws(
      () => new ToolRegistry([{ ...spyTool('t'), simulated: () => 1 } as never]),
      /tool "t": simulated: unknown field; did you mean "simulate"\?/,
    );
    const reg = new ToolRegistry();
    assert.throws(
      () => reg.register({ ...spyTool('t'), name: 7 as never }, 'tools[3]'),
      /tools\[3\]: name: expected a name/,
    );
  });
});

describe('a simulated run never calls a destructive tool live', () => {
  it('even one that says it only reads and never went through registration', async () => {
    const wipe = spyTool('wipe_customer', { effect: 'read', destructive: true });
    const calls: string[] = [];
    const live = {
      draw: () => null,
      at: () => '2026-01-01T00:00:00.000Z',
      invoke: async (t: ToolDefinition) => {
        calls.push(t.name);
        return t.handler({}, {} as never) as never;
      },
    } as unknown as Effects;
    const fx = simulatedEffects(live, 'live');
    assert.equal(fx.mode?.(wipe, 'wipe', {} as RunState), 'simulated');
    const allowed = { step: 'wipe', tool: 'wipe_customer', args: {} } as unknown as PayloadOf<'step.allowed'>;
    const outcome = await fx.invoke(wipe, allowed, { tenant: 't', runId: 'r' } as RunState);
    assert.deepEqual(calls, []);
    assert.equal(wipe.calls.length, 0);
    assert.match(
      (outcome as { suppressed: string }).suppressed,
      /wipe_customer is destructive with no simulate, so in a simulated run nothing was called/,
    );
    // A read tool that is not destructive is still called for real.
    const lookup = spyTool('lookup', { effect: 'read' });
    await fx.invoke(lookup, { ...allowed, tool: 'lookup' }, { tenant: 't', runId: 'r' } as RunState);
    assert.deepEqual(calls, ['lookup']);
  });
});
