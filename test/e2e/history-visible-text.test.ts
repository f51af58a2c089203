/**
 * `keel history` through the real CLI shows a value's Unicode direction controls as escapes
 * (`⟨U+202E⟩`): an argument `invoice-<U+202E>fdp.exe` cannot read as `invoice-exe.pdf`, and a note
 * cannot reverse the rest of Keel's sentence. Text and --json alike carry no direction control.
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { exampleSpec, okJson, Sandbox } from '../helpers/keel-cli.ts';
import { putAtStatus } from '../helpers/lifecycle.ts';
import { entryRows } from '../helpers/sqlite-files.ts';

const sandbox = new Sandbox('history-bidi', { supportDesk: true });
after(() => sandbox.remove());
const keel = (...args: string[]) => sandbox.keel(args);
const CONTROL = /[\u202A-\u202E\u2066-\u2069\u200E\u200F\u061C]/;

test('keel history shows direction controls in values as escapes, in text and in --json', async () => {
  okJson(keel('--tenant', 'default', 'publish', exampleSpec('close-resolved-ticket'), '--json'));
  await putAtStatus(sandbox.store(), 'default', 'close-resolved-ticket', 'LIVE');
  const event = sandbox.write('events/spoof.json', {
    id: 'evt-spoof',
    type: 'ticket.resolved',
    source: 'helpdesk',
    subject: 'T-1004',
    time: '2026-11-30T10:00:00Z',
    payload: { resolution: 'see invoice-\u202Efdp.exe' },
  });
  const run = okJson<{ runs: { runId: string; status: string }[] }>(keel('emit', event, '--json')).runs[0]!;
  assert.equal(run.status, 'waiting_approval');
  okJson(keel('deny', run.runId, '--as', 'dana', '--note', '\u2067reversed? no', '--json'));

  const text = keel('history', run.runId);
  assert.equal(text.code, 0, text.stderr);
  assert.doesNotMatch(text.stdout, CONTROL);
  assert.match(
    text.stdout,
    /resolution="see invoice-⟨U\+202E⟩fdp\.exe", ticket_id="T-1004": close_ticket is destructive/,
  );
  assert.match(text.stdout, /dana denied the proposal: ⟨U\+2067⟩reversed\? no\./);

  const json = okJson<{ kind: string; text: string }[]>(keel('history', run.runId, '--json'));
  assert.doesNotMatch(JSON.stringify(json), CONTROL);
  assert.ok(json.some((l) => l.kind === 'approval.requested' && l.text.includes('invoice-⟨U+202E⟩fdp.exe')));
  // The ledger itself keeps the value as it came: only what is shown is escaped.
  const stored = entryRows(sandbox.store(), run.runId).map((e) => e.payload.toString('utf8'));
  assert.ok(stored.some((p) => p.includes('invoice-\u202Efdp.exe')));
});
