/**
 * `keel draft` and `keel explain` through the real CLI: a draft is printed with its read-back and
 * questions; it is published only when confirmed (--yes, or "y" on a real pseudo-terminal through
 * util-linux's `script`), only as DRAFT, and never while it has questions. Without a confirmation
 * no store is even created.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { after, describe, test } from 'node:test';
import { KEEL_COMMAND } from '../../src/testing/keel-command.ts';
import { EXAMPLE_EVENTS, exampleSpec, okJson, Sandbox, show, supportDesk } from '../helpers/keel-cli.ts';
import { withDb } from '../helpers/sqlite-files.ts';

const sandbox = new Sandbox('draft-cli', { supportDesk: true });
after(() => sandbox.remove());

const REQUEST =
  'When a refund is requested in USD, reply "Thanks for reaching out." and then refund anyone under $50.';
const draft = (...args: string[]) =>
  sandbox.keel(['draft', '--events', EXAMPLE_EVENTS, ...args], { input: '' });
const versions = () =>
  existsSync(sandbox.store())
    ? withDb(
        sandbox.store(),
        (db) =>
          db.prepare('SELECT workflow_id AS id, status FROM workflow_versions').all() as {
            id: string;
            status: string;
          }[],
      )
    : [];

function onTerminal(args: readonly string[], answer: string): { code: number | null; out: string } {
  const desk = supportDesk(sandbox.helpdesk());
  const quoted = [
    process.execPath,
    ...KEEL_COMMAND,
    '--store',
    sandbox.store(),
    ...desk.args,
    'draft',
    '--events',
    EXAMPLE_EVENTS,
    ...args,
  ]
    .map((a) => `'${a.replace(/'/g, "'\\''")}'`)
    .join(' ');
  const r = spawnSync('script', ['-qec', quoted, '/dev/null'], {
    cwd: sandbox.dir,
    input: `${answer}\n`,
    encoding: 'utf8',
    env: { ...process.env, ...desk.env, NO_COLOR: '1', KEEL_STORE: '', NODE_TEST_CONTEXT: '' },
    timeout: 60_000,
  });
  return { code: r.status, out: r.stdout };
}

describe('keel draft publishes nothing without confirmation, and only as DRAFT', () => {
  test('without --yes and without a terminal it prints the draft and publishes nothing (no store is created)', () => {
    const r = draft(REQUEST);
    assert.equal(r.code, 0, show(r));
    assert.match(r.stdout, /# Draft refund-requested-reply-refund v1 \(DRAFT\) sha256:/);
    assert.match(r.stdout, /tool: issue_refund/);
    assert.match(r.stdout, /When a refund is requested, if its currency is "USD"\./);
    assert.match(r.stdout, /not published: run again with --yes/);
    assert.equal(existsSync(sandbox.store()), false);
  });

  test('a draft with questions is never published, even with --yes (exit 2)', () => {
    const r = draft('--json', '--yes', 'Refund anyone under $50 and close the ticket');
    assert.equal(r.code, 2, show(r));
    const out = JSON.parse(r.stdout) as {
      questions: { about: string }[];
      published: unknown;
      publishable: boolean;
    };
    assert.equal(out.publishable, false);
    assert.equal(out.published, null);
    assert.ok(out.questions.some((q) => q.about === 'triggers'));
    assert.match(r.stderr, /not published: the draft has \d+ questions?/);
    // Nothing changed: not even an empty store is left behind.
    assert.equal(existsSync(sandbox.store()), false);
    assert.deepEqual(versions(), []);
  });

  test('on a terminal, "n" publishes nothing and "y" publishes the draft as DRAFT', () => {
    const no = onTerminal([REQUEST], 'n');
    assert.match(no.out, /Publish refund-requested-reply-refund v1 as DRAFT\? \[y\/N\]/, no.out);
    assert.equal(no.code, 2, no.out);
    assert.match(no.out, /not confirmed, nothing was published/);
    assert.equal(existsSync(sandbox.store()), false);
    assert.deepEqual(versions(), []);
    const yes = onTerminal([REQUEST], 'y');
    assert.equal(yes.code, 0, yes.out);
    assert.match(yes.out, /published refund-requested-reply-refund v1 \(DRAFT\)/);
    assert.deepEqual(versions(), [{ id: 'refund-requested-reply-refund', status: 'DRAFT' }]);
  });

  test('--yes publishes a draft without questions, as DRAFT, and says so in --json', () => {
    const r = draft('--json', '--yes', '--id', 'desk-refunds', REQUEST);
    const out = okJson<{
      published: { status: string; workflowId: string; specHash: string };
      specHash: string;
    }>(r);
    assert.equal(out.published.status, 'DRAFT');
    assert.equal(out.published.workflowId, 'desk-refunds');
    assert.equal(out.published.specHash, out.specHash);
    assert.deepEqual(
      versions().find((v) => v.id === 'desk-refunds'),
      { id: 'desk-refunds', status: 'DRAFT' },
    );
  });
});

describe('keel explain', () => {
  test('reads a spec file back, with its risks', () => {
    const r = sandbox.keel(['explain', exampleSpec('close-resolved-ticket')]);
    assert.equal(r.code, 0, show(r));
    assert.match(r.stdout, /When a ticket is resolved\./);
    assert.match(r.stdout, /close \(close_ticket\) is destructive: it waits for a person's approval/);
  });

  test("reads the tenant's policy against each step (--policy), and its refusals as risks", () => {
    const policy = sandbox.write(
      'explain-policy.yaml',
      'default: deny\nrules:\n  - id: tags\n    match: { tool: tag_ticket }\n    outcome: allow\n',
    );
    const r = sandbox.keel(['--policy', policy, 'explain', exampleSpec('close-resolved-ticket')]);
    assert.equal(r.code, 0, show(r));
    assert.match(r.stdout, /Policy:\n {2}Policy [0-9a-f]{12}… \(1 rule\)/);
    assert.match(r.stdout, /1\. tag \(tag_ticket\): allowed \(rule tags\)\./);
    assert.match(
      r.stdout,
      /close \(close_ticket\) is refused by the tenant's policy \(the policy's default\)/,
    );
  });

  test('reads a stored workflow@version back, with its status (--json)', () => {
    const out = okJson<{ id: string; status: string; steps: string[] }>(
      sandbox.keel(['--json', 'explain', 'desk-refunds@1']),
    );
    assert.equal(out.id, 'desk-refunds');
    assert.equal(out.status, 'DRAFT');
    assert.equal(out.steps.length, 2);
    const missing = sandbox.keel(['explain', 'nope@3']);
    assert.equal(missing.code, 3, show(missing));
    assert.match(missing.stderr, /workflow nope v3 not found/);
  });
});

describe('keel draft --compiler model: the model answer is shown and goes through the same checks', () => {
  const step = (tool: string, args: Record<string, unknown>) => ({ name: tool.split('_')[0], tool, args });
  const responses = sandbox.write('responses.json', {
    responses: [
      {
        match: 'email them',
        response: {
          triggers: [{ event: 'refund.requested' }],
          steps: [step('send_email', { to: '{{event.subject}}' })],
          limits: { maxSteps: 1, maxCostUsd: 0 },
          questions: [],
        },
      },
      {
        match: 'lots',
        response: {
          triggers: [{ event: 'refund.requested' }],
          steps: [step('issue_refund', { ticket_id: '{{event.subject}}', amount_usd: 'lots' })],
          limits: { maxSteps: 1, maxCostUsd: 50 },
          questions: [],
        },
      },
      {
        match: 'otherwise',
        response: {
          triggers: [{ event: 'refund.requested' }],
          steps: [
            {
              name: 'by_amount',
              choose: [
                {
                  when: 'payload.refund_amount <= 50',
                  steps: [
                    step('issue_refund', {
                      ticket_id: '{{event.subject}}',
                      amount_usd: '{{event.payload.refund_amount}}',
                    }),
                  ],
                },
              ],
              else: [
                step('draft_reply', { ticket_id: '{{event.subject}}', body: 'A lead will look at it.' }),
              ],
            },
          ],
          limits: { maxSteps: 1, maxCostUsd: 50 },
          questions: [],
        },
      },
      {
        match: '*',
        response: {
          status: 'LIVE',
          triggers: [{ event: 'refund.requested', when: 'payload.currency == "USD"' }],
          steps: [
            step('issue_refund', {
              ticket_id: '{{event.subject}}',
              amount_usd: '{{event.payload.refund_amount}}',
            }),
          ],
          limits: { maxSteps: 1, maxCostUsd: 50 },
          questions: [],
        },
      },
    ],
  });
  const model = (...args: string[]) =>
    sandbox.keel(
      ['--model-provider', 'recorded', 'draft', '--compiler', 'model', '--events', EXAMPLE_EVENTS, ...args],
      {
        input: '',
        env: { KEEL_MODEL_RESPONSES: responses },
      },
    );

  test('a tool outside the catalog is a question, never published, never shown as the draft', () => {
    const r = model('--json', '--yes', 'when a refund is requested, email them');
    assert.equal(r.code, 2, show(r));
    const out = JSON.parse(r.stdout) as {
      spec: unknown;
      partial?: unknown;
      questions: { question: string }[];
      modelAnswer: unknown;
    };
    assert.equal(out.spec, undefined);
    assert.equal(out.partial, undefined);
    assert.ok(
      out.questions.some((q) => /send_email/.test(q.question)),
      r.stdout,
    );
    assert.ok(out.modelAnswer, 'the model answer is recorded in the output');
    assert.equal(
      versions().some((v) => v.id === 'model-refund'),
      false,
    );
  });

  test('an argument that fits no schema is a question from the same validation', () => {
    const r = model('--json', '--yes', 'refund lots');
    assert.equal(r.code, 2, show(r));
    assert.match(r.stdout, /steps\[0\]\.args\.amount_usd/);
  });

  test('a valid answer publishes as DRAFT on --yes, whatever status the model wrote', () => {
    const out = okJson<{ published: { status: string }; compiler: string }>(
      model('--json', '--yes', '--id', 'model-refund', 'refund under $50 in USD'),
    );
    assert.equal(out.compiler, 'model');
    assert.equal(out.published.status, 'DRAFT');
    assert.deepEqual(
      versions().find((v) => v.id === 'model-refund'),
      { id: 'model-refund', status: 'DRAFT' },
    );
  });

  test('a model answer with a choose step and an else publishes as DRAFT after the same checks', () => {
    const out = okJson<{
      published: { status: string };
      spec: { steps: { choose?: unknown[]; else?: unknown[] }[] };
    }>(
      model(
        '--json',
        '--yes',
        '--id',
        'model-branch',
        'when a refund is requested, refund it if it is $50 or less, otherwise reply "A lead will look at it"',
      ),
    );
    assert.equal(out.published.status, 'DRAFT');
    assert.equal(out.spec.steps[0]?.choose?.length, 1);
    assert.equal(out.spec.steps[0]?.else?.length, 1);
    assert.deepEqual(
      versions().find((v) => v.id === 'model-branch'),
      { id: 'model-branch', status: 'DRAFT' },
    );
  });

  test('without a configured provider --compiler model is a usage error', () => {
    const r = sandbox.keel(['draft', '--compiler', 'model', 'anything'], { input: '' });
    assert.equal(r.code, 2, show(r));
    assert.match(r.stderr, /no model provider is configured/);
  });
});

describe('keel diff --explain', () => {
  test('reads both versions back and lists the risks the change adds', () => {
    const v2 = sandbox.write(
      'desk-refunds-v2.yaml',
      `id: desk-refunds
version: 2
status: DRAFT
triggers:
  - event: refund.requested
    when: payload.currency == "USD"
steps:
  - { name: reply, tool: draft_reply, args: { ticket_id: "{{event.subject}}", body: "Thanks for reaching out." } }
  - { name: refund, tool: issue_refund, args: { ticket_id: "{{event.subject}}", amount_usd: "{{event.payload.refund_amount}}" } }
  - { name: close, tool: close_ticket, args: { ticket_id: "{{event.subject}}" } }
limits: { maxSteps: 3, maxCostUsd: 50 }
`,
    );
    assert.equal(sandbox.keel(['publish', v2]).code, 0);
    const out = okJson<{
      explain: { risksAdded: string[]; risksRemoved: string[]; to: { steps: string[] } };
    }>(sandbox.keel(['--json', 'diff', 'desk-refunds', '1', '2', '--explain']));
    assert.deepEqual(out.explain.risksAdded, [
      "close (close_ticket) is destructive: it waits for a person's approval unless the version is AUTONOMOUS.",
    ]);
    assert.deepEqual(out.explain.risksRemoved, []);
    assert.equal(out.explain.to.steps.length, 3);
    const text = sandbox.keel(['diff', 'desk-refunds', '1', '2', '--explain']);
    assert.match(text.stdout, /Risks v2 adds: \n {2}\+ close \(close_ticket\) is destructive/);
  });
});
