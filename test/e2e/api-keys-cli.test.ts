/**
 * `keel keys create | ls | revoke` through the real binary, on a SQLite file and on PostgreSQL
 * (KEEL_DATABASE_URL, a scratch schema): a key is printed once, only its hash is stored, a listing
 * never shows a key or hash, keys are per tenant, a revoked key stops resolving, and bad input is
 * refused with the field named and nothing changed.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { dropSchema, scratchSchemaName, testDatabaseUrl } from '../../src/adapters/postgres/index.ts';
import { hashApiKey, resolveApiKey } from '../../src/app/api-keys.ts';
import { openStore } from '../../src/app/index.ts';
import { type CliResult, failJson, failText, okJson, runKeel, Sandbox } from '../helpers/keel-cli.ts';
import { withDb } from '../helpers/sqlite-files.ts';

interface Created {
  key: string;
  keyId: string;
  tenant: string;
  subject: string;
  createdAt: string;
  kind: 'human' | 'service';
}
interface Listed {
  keyId: string;
  tenant: string;
  subject: string;
  createdAt: string;
  kind: 'human' | 'service';
  revokedAt?: string;
}

const sandbox = new Sandbox('api-keys');
const base = testDatabaseUrl();
const schema = scratchSchemaName('keel_test_keys_cli');
const pgUrl = `${base}${base.includes('?') ? '&' : '?'}schema=${schema}`;
after(async () => {
  sandbox.remove();
  await dropSchema(base, schema);
});

const targets = [
  { name: 'SQLite', store: sandbox.store(), env: {} },
  { name: 'PostgreSQL', store: pgUrl, env: { KEEL_DATABASE_URL: pgUrl } },
] as const;

for (const target of targets) {
  describe(`keel keys on ${target.name}`, () => {
    const keel = (args: readonly string[], env: Record<string, string | undefined> = {}): CliResult =>
      target.name === 'SQLite'
        ? sandbox.keel(args, { env })
        : runKeel(args, { cwd: sandbox.dir, env: { ...target.env, ...env } });

    test('create prints the key once; ls lists it without key or hash; revoke stops it resolving', async () => {
      const created = okJson<Created>(
        keel(['--tenant', 'acme', 'keys', 'create', '--subject', 'ci-bot', '--json']),
      );
      assert.match(created.key, /^keel_[0-9a-f]{16}_[A-Za-z0-9_-]{43}$/);
      assert.equal(created.tenant, 'acme');
      assert.equal(created.subject, 'ci-bot');
      assert.equal(created.kind, 'service', "an automation's key unless --human");
      assert.ok(created.key.includes(created.keyId));

      const plain = keel(['keys', 'create', '--human'], { KEEL_TENANT: 'acme' });
      assert.equal(plain.code, 0, plain.stderr);
      const lines = plain.stdout.trim().split('\n');
      assert.match(
        lines[0]!,
        /^created a person's API key [0-9a-f]{16} for tenant acme, subject key-[0-9a-f]{16}$/,
      );
      assert.match(lines[1]!, /^keel_[0-9a-f]{16}_[A-Za-z0-9_-]{43}$/);
      assert.match(lines[2]!, /shown once/);
      const plainKey = lines[1]!;

      okJson(keel(['--tenant', 'globex', 'keys', 'create', '--json']));
      const listed = okJson<Listed[]>(keel(['--tenant', 'acme', 'keys', 'ls', '--json']));
      assert.equal(listed.length, 2);
      assert.equal(listed[0]!.keyId, created.keyId);
      assert.ok(listed.every((k) => k.tenant === 'acme' && k.revokedAt === undefined));
      assert.deepEqual(
        listed.map((k) => k.kind),
        ['service', 'human'],
      );
      const text = keel(['--tenant', 'acme', 'keys', 'ls']).stdout;
      assert.match(text, new RegExp(`^${created.keyId}  ci-bot  service  created `, 'm'));
      assert.match(text, / {2}human {2}created /);
      for (const out of [JSON.stringify(listed), text]) {
        for (const secret of [created.key, plainKey, hashApiKey(created.key), hashApiKey(plainKey)])
          assert.ok(!out.includes(secret), 'a listing shows neither a key nor its hash');
      }
      if (target.name === 'SQLite') {
        const stored = withDb(target.store, (db) =>
          JSON.stringify(db.prepare('SELECT * FROM api_keys').all()),
        );
        assert.ok(!stored.includes(created.key), 'the key itself is not stored');
        assert.ok(stored.includes(hashApiKey(created.key)), 'its SHA-256 is');
      }

      const store = await openStore(target.store);
      try {
        assert.deepEqual(await resolveApiKey(store.keys, created.key), {
          tenant: 'acme',
          subject: 'ci-bot',
          keyId: created.keyId,
          kind: 'service',
        });
        assert.equal((await resolveApiKey(store.keys, plainKey))?.kind, 'human');
        // Another tenant cannot revoke it; it changes nothing.
        const foreign = failJson(keel(['--tenant', 'globex', 'keys', 'revoke', created.keyId, '--json']), 3);
        assert.equal(foreign.error, 'not_found');
        assert.ok(await resolveApiKey(store.keys, created.key));

        const revoked = okJson<{ keyId: string; revoked: boolean }>(
          keel(['--tenant', 'acme', 'keys', 'revoke', created.keyId, '--json']),
        );
        assert.deepEqual(revoked, { keyId: created.keyId, tenant: 'acme', revoked: true });
        assert.equal(await resolveApiKey(store.keys, created.key), undefined);
        assert.ok(await resolveApiKey(store.keys, plainKey), 'the other key still resolves');
      } finally {
        await store.close();
      }
      const after = okJson<Listed[]>(keel(['--tenant', 'acme', 'keys', 'ls', '--json']));
      assert.match(after[0]!.revokedAt ?? '', /^\d{4}-\d\d-\d\dT/);
      assert.match(keel(['--tenant', 'acme', 'keys', 'ls']).stdout, /revoked \d{4}-/);
    });

    test('a person known by an e-mail address: the docs’ --subject you@example.com works', async () => {
      const byMail = okJson<Created>(
        keel(['--tenant', 'hooli', 'keys', 'create', '--subject', 'you@example.com', '--human', '--json']),
      );
      assert.equal(byMail.subject, 'you@example.com');
      const store = await openStore(target.store);
      try {
        assert.equal((await resolveApiKey(store.keys, byMail.key))?.subject, 'you@example.com');
      } finally {
        await store.close();
      }
    });

    test('bad input is refused with the field named, and creates nothing', () => {
      const noTenant = failJson(keel(['keys', 'create', '--json']), 2);
      assert.equal(noTenant.details?.field, 'tenant');
      const badTenant = failJson(keel(['--tenant', 'ac me', 'keys', 'create', '--json']), 2);
      assert.equal(badTenant.details?.field, 'tenant');
      for (const bad of ['a/b', 'dana@', 'dana\u001b[2J']) {
        const badSubject = failText(keel(['--tenant', 'initech', 'keys', 'create', '--subject', bad]), 2);
        assert.match(
          badSubject,
          /subject: expected a name of 1-64 characters .* optionally followed by @ and a domain/,
        );
      }
      assert.deepEqual(okJson<Listed[]>(keel(['--tenant', 'initech', 'keys', 'ls', '--json'])), []);
      const unknown = failJson(
        keel(['--tenant', 'initech', 'keys', 'revoke', 'feedfacefeedface', '--json']),
        3,
      );
      assert.match(unknown.message, /API key feedfacefeedface not found in tenant initech/);
    });
  });
}
