/**
 * The process `recovery-bench.ts` kills: starts `count` runs of a 2-step workflow inline, each
 * first step a slow idempotent call, prints "walking" once every run is inside it, and waits to be
 * killed with SIGKILL (bench only). argv: <store file or postgres URL> <count>
 */

import { createKeel, openStore } from '../src/app/index.ts';
import { setStatus } from '../src/testing/index.ts';
import { RECOVERY_SPEC, recoveryTools } from './recovery-tools.ts';

const [store, count] = process.argv.slice(2) as [string, string];
let inside = 0;
const n = Number(count);
const keel = createKeel({
  // A SQLite file, or a postgres:// URL (its ?schema= names the bench's scratch schema).
  store: /^postgres(ql)?:\/\//.test(store) ? await openStore(store) : store,
  tools: recoveryTools(() => {
    if (++inside === n) process.stdout.write('walking\n');
    return new Promise(() => {}); // never returns: the process dies inside the call
  }),
});
await keel.workflows.publish('bench', RECOVERY_SPEC, 'recovery.yaml', 'bench');
// The bench measures runs, not promotion: the version is put at AUTONOMOUS directly (a fixture).
await setStatus(keel, 'bench', 'recovery', 1, 'AUTONOMOUS', 'bench');
for (let i = 0; i < n; i++)
  void keel.events.emit('bench', {
    id: `r${i}`,
    type: 'bench.recover',
    time: '2026-01-01T00:00:00Z',
    payload: {},
  });
