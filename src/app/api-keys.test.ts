import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { KeelError } from '../core/errors.ts';
import { checkKeySubject, MAX_SUBJECT } from './api-keys.ts';

const refusal = (v: unknown): KeelError | undefined => {
  try {
    checkKeySubject(v);
    return undefined;
  } catch (e) {
    return e as KeelError;
  }
};

describe('checkKeySubject', () => {
  it('takes a name or an e-mail-like address', () => {
    for (const ok of [
      'dana',
      'ci-bot',
      'key-1.2_3~x',
      'you@example.com',
      'dana+ops@mail.acme.example',
      'a@b',
    ]) {
      assert.equal(checkKeySubject(ok), ok);
    }
  });

  it('refuses anything else, naming the field and showing what it got', () => {
    for (const bad of [
      '',
      'a/b',
      'dana smith',
      'dana@',
      '@example.com',
      'dana@@example.com',
      'dana@exa mple.com',
      'dana@-example.com',
      'dana@example..com',
      'dana@example.com.',
      'dana\n',
      'dana\u0000',
      'dana\u001b[31m',
      'dana\u202E',
      'dána',
      'x'.repeat(65),
      `dana@${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(63)}`,
      42,
      null,
    ]) {
      const e = refusal(bad);
      assert.ok(e instanceof KeelError, `${JSON.stringify(bad)} was accepted`);
      assert.equal(e.code, 'usage');
      assert.equal(e.details.field, 'subject');
      assert.match(
        e.message,
        /^subject: expected a name of 1-64 characters .*optionally followed by @ and a domain/,
      );
    }
    assert.match(refusal('dana\u202E')!.message, /got "dana⟨U\+202E⟩"/);
  });

  it('never takes a control character, a space or more than 254 characters', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 300 }), (s) => {
        if (refusal(s)) return;
        assert.ok(s.length <= MAX_SUBJECT);
        assert.match(s, /^[A-Za-z0-9._~+@-]+$/);
      }),
    );
    const near = (n: number) =>
      `${'a'.repeat(64)}@${Array.from({ length: n }, () => 'b'.repeat(9)).join('.')}`;
    assert.equal(checkKeySubject(near(19)).length, MAX_SUBJECT);
    assert.ok(refusal(`${near(19)}b`), 'one character over');
  });
});
