/**
 * Every option reaches the command it belongs to: each option of each command, every command line
 * the README and docs/ show, and the `--version` collision (`keel promote wf LIVE --version 1` used
 * to print Keel's version and promote nothing). The real program is parsed with its actions
 * replaced by a recorder, so nothing runs and no store is opened.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { type Command, CommanderError, type Option } from 'commander';
import { asksForVersion, buildProgram } from './main.ts';
import { commandPath } from './store-access.ts';

const REPO = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

interface Reached {
  readonly command: string;
  readonly args: readonly unknown[];
  readonly opts: Record<string, unknown>;
}

type Outcome = Reached | { readonly version: true } | { readonly error: string };

function leaves(cmd: Command): Command[] {
  return cmd.commands.length === 0 ? [cmd] : cmd.commands.flatMap(leaves);
}

/** Parses `keel ...tokens` as `main` does, recording which command would run with which options. */
async function parse(tokens: readonly string[]): Promise<Outcome> {
  const program = buildProgram();
  if (asksForVersion(program, tokens)) return { version: true };
  let reached: Reached | undefined;
  const silence = (c: Command) => {
    c.configureOutput({ writeOut: () => {}, writeErr: () => {}, outputError: () => {} });
    c.commands.forEach(silence);
  };
  silence(program);
  for (const leaf of leaves(program)) {
    leaf.action((...a: unknown[]) => {
      const cmd = a.at(-1) as Command;
      reached = { command: commandPath(cmd), args: cmd.processedArgs, opts: cmd.optsWithGlobals() };
    });
  }
  try {
    await program.parseAsync(['node', 'keel', ...tokens]);
  } catch (e) {
    if (e instanceof CommanderError) return { error: e.message };
    throw e;
  }
  return reached ?? { error: 'no command ran' };
}

function camel(long: string): string {
  return long.replace(/^--/, '').replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
}

/** A value an option accepts: its first choice, or a number for the numeric ones. */
function sampleValue(o: Option): string {
  if (o.argChoices?.length) return o.argChoices.at(-1)!;
  return /<(n|ms|seq)>/.test(o.flags) ? '7' : 'v1';
}

/** A command line for `leaf` with its required arguments and options (but `except`) filled in. */
function baseLine(leaf: Command, except?: string): string[] {
  const tokens = commandPath(leaf).split(' ');
  for (const a of leaf.registeredArguments) if (a.required) tokens.push(`arg-${a.name()}`);
  for (const o of leaf.options) if (o.mandatory && o.long !== except) tokens.push(o.long!, sampleValue(o));
  return tokens;
}

function assertReached(outcome: Outcome, command: string, key: string, value: unknown, line: string) {
  assert.ok('command' in outcome, `keel ${line}: ${JSON.stringify(outcome)}`);
  assert.equal(outcome.command, command, `keel ${line}`);
  const got = outcome.opts[key];
  if (Array.isArray(got)) assert.ok(got.includes(value), `keel ${line}: ${key} = ${JSON.stringify(got)}`);
  else assert.equal(got, value, `keel ${line}: ${key} = ${JSON.stringify(got)}`);
}

describe('every option of every command reaches that command', () => {
  const program = buildProgram();
  for (const leaf of leaves(program)) {
    const path = commandPath(leaf);
    for (const o of leaf.options) {
      test(`keel ${path} ${o.long}`, async () => {
        const takesValue = o.required || o.optional;
        const value = sampleValue(o);
        const tokens = [...baseLine(leaf, o.long), o.long!, ...(takesValue ? [value] : [])];
        assertReached(await parse(tokens), path, camel(o.long!), takesValue ? value : true, tokens.join(' '));
      });
    }
    // Global options work after the command too (`keel keys create --tenant acme`).
    test(`keel ${path} takes the global options after it`, async () => {
      const tokens = [...baseLine(leaf), '--store', 'a.db', '--tenant', 'acme', '--json'];
      const outcome = await parse(tokens);
      assertReached(outcome, path, 'store', 'a.db', tokens.join(' '));
      assertReached(outcome, path, 'tenant', 'acme', tokens.join(' '));
      assertReached(outcome, path, 'json', true, tokens.join(' '));
    });
  }
});

describe('--version: the program before a command, the command after it', () => {
  test('keel --version and keel -V ask for the version, with or without global options first', async () => {
    for (const line of [['--version'], ['-V'], ['--store', 'x.db', '-V'], ['--json', '--version']])
      assert.deepEqual(await parse(line), { version: true }, line.join(' '));
    // `--store -V` names a store called -V; it does not ask for the version.
    assert.equal(asksForVersion(buildProgram(), ['--store', '-V', 'runs', 'ls']), false);
  });

  for (const [line, command] of [
    ['promote refund-under-50 LIVE --version 1', 'promote'],
    ['promote refund-under-50 LIVE --as dana --version 1', 'promote'],
    ['run refund-under-50 event.json --version 1', 'run'],
    ['fork sha256:abc --from 2 --mode branch --version 1', 'fork'],
    ['--tenant acme promote refund-under-50 LIVE --version 1', 'promote'],
  ] as const) {
    test(`keel ${line}: --version reaches ${command}`, async () => {
      assertReached(await parse(line.split(' ')), command, 'version', '1', line);
    });
  }

  test('a command without --version refuses it instead of printing the version', async () => {
    const outcome = await parse(['runs', 'ls', '--version']);
    assert.ok(
      'error' in outcome && /unknown option '--version'/.test(outcome.error),
      JSON.stringify(outcome),
    );
  });
});

/** Splits a shell line into words (quotes, no expansion). */
function words(line: string): string[] {
  const out: string[] = [];
  const re = /'([^']*)'|"((?:[^"\\]|\\.)*)"|(\S+)/g;
  for (const m of line.matchAll(re)) out.push(m[1] ?? m[2] ?? m[3]!);
  return out;
}

/** A documented line as it would be typed: placeholders filled, optional parts kept, first alternatives. */
function typed(line: string): string[] {
  return words(
    line
      .replace(/[[\]]/g, ' ')
      .replace(/<([^>]*)>/g, 'x-$1')
      .replace(/(\S+)\|\S+/g, '$1'),
  );
}

interface DocLine {
  readonly file: string;
  readonly text: string;
  /** A line of a code block (a whole command) rather than a span in prose (often a fragment). */
  readonly whole: boolean;
}

function documentedLines(): DocLine[] {
  const files = ['README.md', ...readdirSync(join(REPO, 'docs')).map((f) => join('docs', f))].filter((f) =>
    f.endsWith('.md'),
  );
  const lines: DocLine[] = [];
  for (const file of files) {
    const text = readFileSync(join(REPO, file), 'utf8');
    let block: string | undefined;
    let continued = '';
    for (const raw of text.split('\n')) {
      const fence = /^\s*```(\w*)/.exec(raw);
      if (fence) {
        block = block === undefined ? fence[1] : undefined;
        continued = '';
        continue;
      }
      // Shell blocks only: other blocks hold diagrams, SQL, YAML.
      if (block === 'sh' || block === 'bash' || block === 'console') {
        // A line ending in `\` goes on on the next one: one command, checked whole.
        if (raw.endsWith('\\')) {
          continued += `${raw.slice(0, -1).trim()} `;
          continue;
        }
        const code = (continued + raw.trim()).replace(/\s+#.*$/, '').trim();
        continued = '';
        for (const part of code.split(/&&|\|\|/)) {
          const cmd = part
            .trim()
            .replace(/^npx\s+/, '')
            .replace(/\s*&(\s+\w+=\S+)?$/, ''); // run in the background (`& SERVER=$!`)
          if (cmd.startsWith('keel ')) lines.push({ file, text: cmd.slice(5), whole: true });
        }
      }
    }
    for (const m of text.matchAll(/`keel ([^`]+)`/g))
      lines.push({ file, text: m[1]!.replace(/\s+/g, ' '), whole: false });
  }
  return lines;
}

/** The command a documented line names: the longest run of leading words that is a command path. */
function commandOf(
  program: Command,
  tokens: readonly string[],
): { cmd: Command; rest: string[] } | undefined {
  const globalsWithValue = new Set(program.options.filter((o) => o.required).map((o) => o.long));
  const rest: string[] = [];
  let cmd = program;
  let i = 0;
  for (; i < tokens.length; i++) {
    const t = tokens[i]!;
    if (globalsWithValue.has(t)) {
      i++;
      continue;
    }
    if (t.startsWith('-')) continue;
    const sub = cmd.commands.find((c) => c.name() === t);
    if (!sub) break;
    cmd = sub;
  }
  rest.push(...tokens.slice(i));
  return cmd === program ? undefined : { cmd, rest };
}

describe('every command line in README.md and docs/ parses, and each option reaches its command', () => {
  const program = buildProgram();
  const docs = documentedLines();
  test('the docs show command lines (the extraction works)', () => {
    assert.ok(docs.filter((d) => d.whole).length >= 30, `${docs.filter((d) => d.whole).length} lines`);
  });
  for (const d of docs) {
    const tokens = typed(d.text);
    const found = commandOf(program, tokens);
    if (!found) continue; // prose such as `keel --trust-keys` names a global option; covered above
    const path = commandPath(found.cmd);
    const options = tokens
      .map((t, i) => ({ t, next: tokens[i + 1] }))
      .filter(({ t }) => t.startsWith('--') && t !== '--help');
    test(`${d.file}: keel ${d.text}`, async () => {
      for (const { t } of options) {
        const known = [...found.cmd.options, ...program.options].some((o) => o.long === t);
        assert.ok(known, `${d.file}: keel ${d.text}: ${t} is not an option of keel ${path}`);
      }
      if (d.whole && found.cmd.commands.length === 0) {
        const outcome = await parse(tokens);
        for (const { t, next } of options) {
          const o = [...found.cmd.options, ...program.options].find((x) => x.long === t)!;
          const value = o.required || o.optional ? next : true;
          assertReached(outcome, path, camel(t), value, d.text);
        }
      } else if (found.cmd.commands.length === 0) {
        // A fragment in prose: each option it names, on an otherwise complete line, reaches the command.
        for (const { t, next } of options) {
          const o = [...found.cmd.options, ...program.options].find((x) => x.long === t)!;
          const takesValue = o.required || o.optional;
          const value = takesValue ? (next ?? sampleValue(o)) : true;
          const line = [...baseLine(found.cmd, t), t, ...(takesValue ? [String(value)] : [])];
          assertReached(await parse(line), path, camel(t), value, line.join(' '));
        }
      }
    });
  }
});
