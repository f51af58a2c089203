/**
 * Tools every Keel instance has: the small building blocks the OpenWOP conformance fixtures are
 * made of. All but one read nothing but their arguments (`core.delay` also waits), so they are
 * idempotent reads; `core.conformance.side-effect` stands for an external effect (not idempotent).
 * `core.approvalGate` is an approval gate: it runs only once a person approved.
 */
import type { ToolContext, ToolDefinition } from '../ports/index.ts';

const pure = { destructive: false, effect: 'read', idempotent: true, scopes: [] } as const;

/** The longest wait `core.delay` accepts, in ms (ten minutes). */
export const MAX_DELAY_MS = 600_000;

/** An Error carrying a string `code`: the walk records that code on the step's `step.failed`. */
function failure(code: string, message: string): Error {
  return Object.assign(new Error(message), { code });
}

/** Waits `ms`, or until the run is cancelled (then throws an error with code `cancelled`). */
function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  const cancelled = () => failure('cancelled', `the delay was cancelled before ${ms} ms had passed`);
  if (signal?.aborted) return Promise.reject(cancelled());
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(cancelled());
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

export const CORE_TOOLS: readonly ToolDefinition[] = [
  {
    ...pure,
    name: 'core.noop',
    description: 'Does nothing and returns an empty object.',
    args: { type: 'object' },
    handler: () => ({}),
  },
  {
    ...pure,
    name: 'core.identity',
    description: 'Returns its arguments unchanged.',
    args: { type: 'object' },
    handler: (args) => args,
  },
  {
    ...pure,
    name: 'core.conformance.nondeterminism',
    description:
      'Returns one string per declared source, from values the run drew (and recorded) in its arguments.',
    args: {
      type: 'object',
      required: ['clock', 'random', 'id', 'env'],
      properties: { clock: { type: 'string' }, random: { type: 'string' }, id: { type: 'string' }, env: {} },
      additionalProperties: false,
    },
    handler: (args) => ({
      clock: String(args.clock),
      random: String(args.random),
      id: String(args.id),
      env: String(args.env),
    }),
  },
  {
    ...pure,
    name: 'core.approvalGate',
    description:
      'A person decides: every proposal waits for an approval (its arguments, e.g. title and actions, are shown to them); once approved it returns {action: "accept"}.',
    args: { type: 'object' },
    approval: 'always',
    handler: () => ({ action: 'accept' }),
  },
  {
    ...pure,
    name: 'core.delay',
    description: `Waits delayMs milliseconds (0 to ${MAX_DELAY_MS}) and returns {delayedMs}; stops early, failing as cancelled, when the run is cancelled.`,
    args: {
      type: 'object',
      required: ['delayMs'],
      properties: { delayMs: { type: 'integer', minimum: 0, maximum: MAX_DELAY_MS } },
    },
    handler: async (args, ctx: ToolContext) => {
      const ms = args.delayMs as number;
      await sleep(ms, ctx.signal);
      return { delayedMs: ms };
    },
  },
  {
    destructive: false,
    effect: 'external',
    idempotent: false,
    scopes: [],
    name: 'core.conformance.side-effect',
    description:
      'Stands for an effect outside the run (an email sent, a card charged): returns {performed: true} with the idempotency key it was given. Never called on a replay fork.',
    args: { type: 'object' },
    handler: (_args, ctx: ToolContext) => ({ performed: true, idempotencyKey: ctx.idempotencyKey }),
  },
  {
    ...pure,
    name: 'core.conformance.fail',
    description:
      'Always fails with code conformance_failure (and `message`, when given), so the run ends failed.',
    args: { type: 'object', properties: { message: { type: 'string' } } },
    handler: (args) => {
      throw failure(
        'conformance_failure',
        typeof args.message === 'string' ? args.message : 'core.conformance.fail failed, as it always does',
      );
    },
  },
];
