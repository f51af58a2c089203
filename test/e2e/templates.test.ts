/**
 * The project templates (templates/, docs/templates.md), each in a sandbox of its own: `keel init
 * --template <name>` writes a project; `keel validate` accepts every workflow against the project's
 * tool pack; each is published, promoted to TESTING, its tests all pass (`keel test`), it goes up
 * to LIVE (the first LIVE version: its tests pass again) and one sample event gives the outcome its
 * README promises — runs, statuses, the tool a person is asked about, and the effects the pack's
 * stand-in handlers made (.keel/outbox.jsonl beside the pack). Most commands run through the CLI's
 * `main` in a worker thread (cli-in-process.ts); `templates ls`, `init --template`, its errors and
 * one template's whole story run through the real `keel` command in the project directory, where
 * the project tool pack is found by the working directory as a user's is.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { EXIT } from '../../src/cli/exit-codes.ts';
import { listTemplates, TEMPLATES_DIR } from '../../src/cli/templates.ts';
import { CliWorker, type Ran } from '../helpers/cli-in-process.ts';
import { failJson, okJson, REPO, Sandbox, show } from '../helpers/keel-cli.ts';

/** What each template's README promises of its sample event, run by its LIVE version. */
interface Sample {
  readonly event: string;
  /** workflow id -> the status its run ends in (or waits in); no other workflow runs. */
  readonly runs: Readonly<Record<string, string>>;
  /** The tools a person is asked about, when the run waits. */
  readonly waitsFor?: readonly string[];
  /** The tools whose effects the pack recorded, in order (after any approval was given). */
  readonly effects: readonly string[];
  /** Approve the pending approvals and expect these final statuses. */
  readonly approved?: Readonly<Record<string, string>>;
  /** A second sample event the README tells of, and the runs it starts (none: no trigger matches). */
  readonly next: { readonly event: string; readonly runs: Readonly<Record<string, string>> };
}

const SAMPLES: Readonly<Record<string, Sample>> = {
  'support-refunds': {
    event: 'refund-30.json',
    runs: { 'refund-request': 'waiting_approval' },
    waitsFor: ['issue_refund'],
    approved: { 'refund-request': 'waiting' }, // for the customer's reply, 48 hours at most
    effects: ['send_reply', 'issue_refund'],
    next: { event: 'refund-120.json', runs: { 'refund-request': 'refused' } },
  },
  'ticket-triage': {
    event: 'ticket-urgent.json',
    runs: { 'triage-urgent': 'completed' },
    effects: ['tag_ticket', 'assign_ticket', 'notify_channel'],
    next: { event: 'ticket-standard.json', runs: { 'triage-standard': 'completed' } },
  },
  'invoice-approval': {
    event: 'invoice-1200.json',
    runs: { 'pay-invoice': 'waiting_approval' },
    waitsFor: ['schedule_payment'],
    approved: { 'pay-invoice': 'completed' },
    effects: ['schedule_payment', 'notify_vendor'],
    next: { event: 'invoice-unmatched.json', runs: { 'pay-invoice': 'refused' } },
  },
  'expense-report': {
    event: 'expense-travel.json',
    runs: { 'reimburse-expense': 'waiting_approval' },
    waitsFor: ['reimburse_employee'],
    approved: { 'reimburse-expense': 'completed' },
    effects: ['approve_expense', 'reimburse_employee'],
    next: { event: 'expense-alcohol.json', runs: { 'reimburse-expense': 'refused' } },
  },
  'access-request': {
    event: 'access-analytics.json',
    runs: { 'grant-temporary-access': 'waiting_approval' },
    waitsFor: ['request_manager_signoff', 'grant_access'],
    approved: { 'grant-temporary-access': 'waiting' }, // until the grant ends, 30 days on
    effects: ['grant_access', 'notify_requester'],
    next: { event: 'access-payroll.json', runs: { 'grant-temporary-access': 'refused' } },
  },
  'oncall-escalation': {
    event: 'alert-critical.json',
    runs: { 'escalate-critical-alert': 'waiting' }, // for an acknowledgement, 15 minutes at most
    effects: ['open_incident', 'page_on_call'],
    next: { event: 'alert-warning.json', runs: { 'log-warning-alert': 'completed' } },
  },
  'content-moderation': {
    event: 'post-illegal.json',
    runs: { 'remove-illegal-content': 'waiting_approval' },
    waitsFor: ['remove_post'],
    approved: { 'remove-illegal-content': 'completed' },
    effects: ['hide_post', 'remove_post', 'notify_author'],
    next: { event: 'post-spam.json', runs: { 'hide-reported-post': 'completed' } },
  },
  'data-export-request': {
    event: 'export-us.json',
    runs: { 'export-customer-data': 'waiting_approval' },
    waitsFor: ['send_secure_link'],
    approved: { 'export-customer-data': 'completed' },
    effects: ['build_export', 'send_secure_link'],
    next: { event: 'export-unverified.json', runs: {} },
  },
};

const cli = new CliWorker({ KEEL_USER: 'dana' });
after(() => cli.stop());

const sandboxes: Sandbox[] = [];
after(() => {
  for (const s of sandboxes) s.remove();
});

function sandbox(name: string): Sandbox {
  const s = new Sandbox(`tmpl-${name}`);
  sandboxes.push(s);
  return s;
}

const ok = (r: Ran, what: string): string => {
  assert.equal(r.code, 0, `${what} -> exit ${r.code}\n--- stdout\n${r.stdout}--- stderr\n${r.stderr}`);
  return r.stdout;
};

const workflowFiles = (dir: string) =>
  readdirSync(join(dir, 'workflows'))
    .filter((f) => f.endsWith('.yaml'))
    .sort();

function outbox(dir: string): string[] {
  const file = join(dir, '.keel', 'outbox.jsonl');
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => (JSON.parse(l) as { tool: string }).tool);
}

interface Emitted {
  runs: { runId: string; workflowId: string; status: string }[];
}

describe('keel templates', () => {
  const templates = listTemplates();

  test('there are at least eight, across domains, each with a README and a paragraph in docs/templates.md', () => {
    assert.ok(templates.length >= 8, `${templates.length} templates`);
    assert.ok(new Set(templates.map((t) => t.domain)).size >= 5, 'templates span at least five domains');
    const doc = readFileSync(join(REPO, 'docs', 'templates.md'), 'utf8');
    for (const t of templates) {
      assert.match(doc, new RegExp(`^## ${t.title}\\n`, 'm'), `docs/templates.md has a section on ${t.name}`);
      assert.ok(doc.includes(`--template ${t.name}`), `docs/templates.md shows --template ${t.name}`);
      const readme = readFileSync(join(TEMPLATES_DIR, t.name, 'README.md'), 'utf8');
      assert.ok(
        readme.includes(`events/${SAMPLES[t.name]?.event}`),
        `${t.name}'s README names its sample event`,
      );
      assert.ok(SAMPLES[t.name], `the suite knows what ${t.name}'s README promises`);
    }
  });

  test("each tool pack declares the template's tools, and every write or external tool a simulate", async () => {
    for (const t of templates) {
      const mod = (await import(pathToFileURL(join(TEMPLATES_DIR, t.name, 'keel.tools.mjs')).href)) as {
        default: { name: string; effect: string; simulate?: unknown }[];
      };
      assert.deepEqual(
        mod.default.map((d) => d.name),
        t.tools,
        `${t.name}: template.json names its pack's tools`,
      );
      for (const d of mod.default)
        assert.equal(typeof d.simulate, 'function', `${t.name}: ${d.name} has a simulate`);
      const text = readFileSync(join(TEMPLATES_DIR, t.name, 'keel.tools.mjs'), 'utf8');
      assert.doesNotMatch(text, /from 'keel/, `${t.name}: the pack imports nothing of Keel's`);
    }
  });

  for (const t of listTemplates()) {
    test(`${t.name}: init, validate, publish, TESTING, its tests pass, LIVE, and the sample event does what the README says`, async () => {
      const s = sandbox(t.name);
      const project = join(s.dir, 'project');
      const sample = SAMPLES[t.name]!;
      const g = [
        '--store',
        s.store(),
        '--tools',
        join(project, 'keel.tools.mjs'),
        ...(t.policy ? ['--policy', join(project, 'policy.yaml')] : []),
      ];
      const keel = (...args: string[]) => cli.run([...g, ...args]);
      const init = JSON.parse(
        ok(await cli.run(['--store', s.store(), '--json', 'init', '--template', t.name, project]), 'init'),
      ) as {
        written: string[];
        kept: string[];
      };
      assert.deepEqual(init.kept, []);
      assert.ok(existsSync(s.store()), 'init made the store in the sandbox');
      for (const f of ['keel.tools.mjs', 'README.md', ...t.workflows.map((w) => `workflows/${w}.yaml`)])
        assert.ok(existsSync(join(project, f)), `${t.name}: wrote ${f}`);
      assert.equal(existsSync(join(project, 'template.json')), false);
      assert.deepEqual(
        workflowFiles(project),
        t.workflows.map((w) => `${w}.yaml`),
      );
      for (const w of t.workflows) {
        const file = join(project, 'workflows', `${w}.yaml`);
        const valid = JSON.parse(ok(await keel('--json', 'validate', file), `validate ${w}`)) as {
          id: string;
        };
        assert.equal(valid.id, w);
        ok(await keel('publish', file), `publish ${w}`);
        ok(await keel('promote', w, 'TESTING'), `promote ${w} TESTING`);
        const tested = JSON.parse(ok(await keel('--json', 'test', w), `test ${w}`)) as {
          passed: boolean;
          tests: { name: string; passed: boolean }[];
        };
        assert.equal(tested.passed, true, JSON.stringify(tested));
        assert.ok(tested.tests.length >= 2, `${w} has at least two tests`);
        assert.ok(
          tested.tests.every((x) => x.passed),
          JSON.stringify(tested.tests.filter((x) => !x.passed)),
        );
        ok(await keel('promote', w, 'SHADOW'), `promote ${w} SHADOW`);
        ok(await keel('promote', w, 'LIVE'), `promote ${w} LIVE`);
      }
      assert.deepEqual(outbox(project), [], 'tests are simulated: no effect was recorded');
      const emitted = JSON.parse(
        ok(await keel('--json', 'emit', join(project, 'events', sample.event)), 'emit'),
      ) as Emitted;
      assert.deepEqual(
        Object.fromEntries(emitted.runs.map((r) => [r.workflowId, r.status])),
        sample.runs,
        JSON.stringify(emitted),
      );
      if (sample.waitsFor) {
        // Each approval given may lead to the next wait (a sign-off, then a destructive grant).
        const asked: string[] = [];
        for (let round = 0; round < 4; round++) {
          const pending = JSON.parse(ok(await keel('--json', 'approvals', 'ls'), 'approvals ls')) as {
            runId: string;
            tool: string;
          }[];
          if (pending.length === 0) break;
          for (const p of pending) {
            asked.push(p.tool);
            ok(await keel('--json', 'approve', p.runId), `approve ${p.tool}`);
          }
        }
        assert.deepEqual(asked, sample.waitsFor, `${t.name}: who was asked`);
        const after = emitted.runs.map(async (r) => {
          const shown = JSON.parse(ok(await keel('--json', 'runs', 'show', r.runId), 'runs show')) as {
            status: string;
          };
          return [r.workflowId, shown.status] as const;
        });
        assert.deepEqual(Object.fromEntries(await Promise.all(after)), sample.approved);
      }
      assert.deepEqual(outbox(project), sample.effects, `${t.name}: the effects the pack made`);
      const next = JSON.parse(
        ok(await keel('--json', 'emit', join(project, 'events', sample.next.event)), 'emit'),
      ) as Emitted;
      assert.deepEqual(
        Object.fromEntries(next.runs.map((r) => [r.workflowId, r.status])),
        sample.next.runs,
        `${t.name}: ${sample.next.event}: ${JSON.stringify(next)}`,
      );
    });
  }
});

describe('keel templates through the real CLI', () => {
  test('templates ls lists every template, in text and --json', () => {
    const s = sandbox('ls');
    const all = okJson<{ templates: { name: string; workflows: string[]; policy: boolean }[] }>(
      s.keel(['--json', 'templates', 'ls']),
    );
    assert.deepEqual(
      all.templates.map((t) => t.name),
      listTemplates().map((t) => t.name),
    );
    assert.ok(all.templates.some((t) => t.policy));
    const text = s.keel(['templates', 'ls']);
    assert.equal(text.code, 0, show(text));
    for (const t of all.templates) assert.match(text.stdout, new RegExp(`^${t.name} `, 'm'));
    assert.match(text.stdout, new RegExp(`^${all.templates.length} templates; `, 'm'));
    assert.equal(existsSync(s.store()), false, 'templates ls opens no store');
  });

  test('an unknown template is a usage error listing the available ones, and creates nothing', () => {
    const s = sandbox('unknown');
    const err = failJson(s.keel(['--json', 'init', '--template', 'refundz', 'project']), EXIT.usage);
    assert.equal(err.error, 'usage');
    assert.match(err.message, /no template named "refundz"; available: .*support-refunds/);
    assert.deepEqual(
      err.details?.available,
      listTemplates().map((t) => t.name),
    );
    assert.deepEqual(readdirSync(s.dir), [], 'no store, no project');
  });

  test('init --template into a directory with files keeps them, like init, and writes the rest', () => {
    const s = sandbox('nonempty');
    const mine = '// my own tools\nexport default [];\n';
    writeFileSync(s.write('keel.tools.mjs', mine), mine);
    const r = okJson<{ written: string[]; kept: string[] }>(
      s.keel(['--json', 'init', '--template', 'support-refunds']),
    );
    assert.deepEqual(r.kept, ['keel.tools.mjs']);
    assert.ok(r.written.includes(join('workflows', 'refund-request.yaml')), JSON.stringify(r));
    assert.equal(readFileSync(join(s.dir, 'keel.tools.mjs'), 'utf8'), mine);
    const again = okJson<{ written: string[]; kept: string[] }>(
      s.keel(['--json', 'init', '--template', 'support-refunds']),
    );
    assert.deepEqual(again.written, []);
    const text = s.keel(['init', '--template', 'support-refunds']);
    assert.match(text.stdout, /nothing to write: the support-refunds template's files exist already/);
  });

  test('plain init still writes the support-desk example', () => {
    const s = sandbox('plain');
    const r = okJson<{ written: string[] }>(s.keel(['--json', 'init']));
    assert.ok(r.written.includes(join('workflows', 'refund-under-50.yaml')), JSON.stringify(r));
    assert.equal(existsSync(join(s.dir, 'README.md')), false);
  });

  test('support-refunds, as its README tells it, in the project directory', () => {
    const s = sandbox('story');
    const keel = (...args: string[]) => {
      const r = s.keel(args);
      assert.equal(r.code, 0, show(r));
      return r.stdout;
    };
    keel('init', '--template', 'support-refunds');
    assert.match(keel('validate', 'workflows/refund-request.yaml'), /^valid: refund-request v1, 5 steps/);
    keel('publish', 'workflows/refund-request.yaml', '--as', 'dana');
    keel('promote', 'refund-request', 'TESTING', '--as', 'dana');
    assert.match(keel('test', 'refund-request'), /passed: 7 of 7/);
    keel('promote', 'refund-request', 'SHADOW', '--as', 'dana');
    keel('promote', 'refund-request', 'LIVE', '--as', 'dana');
    const asked = okJson<Emitted>(s.keel(['--json', 'emit', 'events/refund-30.json']));
    assert.deepEqual(
      asked.runs.map((r) => r.status),
      ['waiting_approval'],
    );
    const runId = asked.runs[0]?.runId ?? '';
    keel('approve', runId, '--as', 'dana');
    const status = () => okJson<{ status: string }>(s.keel(['--json', 'runs', 'show', runId])).status;
    assert.equal(status(), 'waiting', 'refunded, it waits for the customer');
    keel('emit', 'events/customer-replied.json');
    assert.equal(status(), 'completed', "the customer's reply on T-2001 ended the wait");
    assert.deepEqual(outbox(s.dir), ['send_reply', 'issue_refund'], 'the customer replied: not closed');
    const over = okJson<Emitted>(s.keel(['--json', 'emit', 'events/refund-120.json']));
    assert.deepEqual(
      over.runs.map((r) => r.status),
      ['refused'],
    );
    assert.deepEqual(
      outbox(s.dir),
      ['send_reply', 'issue_refund', 'send_reply'],
      'the reply went out; the refund over the cap did not',
    );
  });
});
