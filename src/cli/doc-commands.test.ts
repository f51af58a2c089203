/**
 * Every `keel …` command line the documents give (README.md and docs/*.md: lines of shell blocks,
 * and inline code spans) names commands and flags `keel` has. Each is read against the program
 * `keel --help` describes: global options first, then the command path (`writs keygen`), then
 * each `--flag` and `-f` must be an option of that command or a global one. A doc that once said
 * `keel writs keygen --tenant acme --dir keys` (the option is `--out`) fails here, naming the file
 * and line. Placeholders (`<cmd>`, `…`) stop the check of a line where they stand.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { buildProgram } from './main.ts';

const REPO = fileURLToPath(new URL('../..', import.meta.url));

interface Cited {
  readonly where: string;
  readonly words: readonly string[];
}

/** Splits a shell line into words, quotes kept together (and dropped). */
function words(text: string): string[] {
  return (text.match(/"[^"]*"|'[^']*'|\S+/g) ?? []).map((w) => w.replace(/^(["'])(.*)\1$/, '$2'));
}

/** The `keel` invocations in one piece of shell text: after `keel` or `npx keel`, up to `&&`, `|`, `;`, `#`, a box's edge. */
function invocations(text: string): string[][] {
  const found: string[][] = [];
  const comment = /(^|\s)#(.*)$/.exec(text)?.[2] ?? '';
  const noComment = text.replace(/(^|\s)#.*$/, '');
  // A comment offering another command (`# or: npx keel writs keygen ...`) is checked too; `npx` marks it.
  const offered = comment.indexOf('npx keel ');
  if (offered >= 0) found.push(...invocations(comment.slice(offered)));
  // Box-drawing characters too: a diagram's boxes are not arguments.
  for (const part of noComment.split(/&&|\|\||\||;|\$\(|\)|[\u2500-\u257f]/)) {
    const w = words(part.trim());
    // Leading variable assignments (KEEL_STORE=... keel ...) and `npx` / `$` prompts.
    let i = 0;
    while (i < w.length && (/^[A-Z_][A-Z0-9_]*=/.test(w[i]!) || w[i] === 'npx' || w[i] === '$')) i++;
    if (w[i] !== 'keel') continue;
    found.push(w.slice(i + 1));
  }
  return found;
}

function cited(doc: string): Cited[] {
  const out: Cited[] = [];
  const lines = readFileSync(join(REPO, doc), 'utf8').split('\n');
  let fence: string | undefined;
  lines.forEach((l, n) => {
    const where = `${doc}:${n + 1}`;
    const opened = /^\s*```(\w*)/.exec(l);
    if (opened) {
      fence = fence === undefined ? opened[1] : undefined;
      return;
    }
    if (fence !== undefined) {
      if (fence === 'sh' || fence === 'bash' || fence === '')
        for (const w of invocations(l)) out.push({ where, words: w });
      return;
    }
    for (const span of l.matchAll(/`([^`]+)`/g))
      if (/^(npx )?keel( |$)/.test(span[1]!))
        for (const w of invocations(span[1]!)) out.push({ where, words: w });
  });
  return out;
}

/** The long and short names of a command's options. */
function optionNames(cmd: Command): Set<string> {
  const names = new Set(['--help', '-h']);
  for (const o of cmd.options) for (const n of [o.long, o.short]) if (n) names.add(n);
  return names;
}

function takesValue(cmd: Command, flag: string): boolean {
  const o = cmd.options.find((o) => o.long === flag || o.short === flag);
  return o !== undefined && (o.required || o.optional);
}

const placeholder = (w: string) => /[<>…{}[\]$]|\.\.\./.test(w);

/** What is wrong with one cited invocation, or undefined. */
function judge(program: Command, w: readonly string[]): string | undefined {
  const globals = optionNames(program);
  globals.add('--version');
  globals.add('-V');
  let i = 0;
  // Global options before the command.
  for (; i < w.length && w[i]!.startsWith('-'); i++) {
    const flag = w[i]!.split('=')[0]!;
    if (placeholder(flag)) return undefined;
    if (!globals.has(flag)) return `${flag} is not a global option of keel`;
    if (takesValue(program, flag) && !w[i]!.includes('=')) i++;
  }
  let cmd = program;
  for (; i < w.length && !w[i]!.startsWith('-'); i++) {
    const sub = cmd.commands.find((c) => c.name() === w[i] || c.aliases().includes(w[i]!));
    if (sub) {
      cmd = sub;
      continue;
    }
    if (placeholder(w[i]!)) return undefined;
    if (cmd === program) return `${w[i]} is not a keel command`;
    if (cmd.commands.length > 0 && cmd.registeredArguments.length === 0 && !w[i]!.startsWith('-'))
      return `${w[i]} is not a command of keel ${cmd.name()}`;
    break; // the command's arguments start here
  }
  const path = commandPath(cmd);
  const own = optionNames(cmd);
  for (; i < w.length; i++) {
    const word = w[i]!;
    if (!word.startsWith('-') || word === '-' || word === '--') continue;
    if (/^-\d/.test(word)) continue; // a negative number given as a value
    const flag = word.split('=')[0]!;
    if (placeholder(flag)) return undefined;
    if (own.has(flag)) {
      if (takesValue(cmd, flag) && !word.includes('=')) i++;
      continue;
    }
    if (globals.has(flag)) {
      if (takesValue(program, flag) && !word.includes('=')) i++;
      continue;
    }
    return `${flag} is not an option of keel ${path} (keel ${path} --help)`;
  }
  return undefined;
}

function commandPath(cmd: Command): string {
  const names: string[] = [];
  for (let c: Command | null = cmd; c?.parent; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}

function documents(): string[] {
  return [
    'README.md',
    ...readdirSync(join(REPO, 'docs'))
      .filter((f) => f.endsWith('.md'))
      .map((f) => join('docs', f)),
  ];
}

test('every keel command line in README.md and docs/ names a command and flags keel has', () => {
  const program = buildProgram();
  const all = documents().flatMap(cited);
  assert.ok(all.length > 300, `${all.length} command lines cited`);
  const wrong = all.flatMap((c) => {
    const why = judge(program, c.words);
    return why ? [`${c.where}: keel ${c.words.join(' ')}: ${why}`] : [];
  });
  assert.deepEqual(wrong, []);
});

test('the check catches a flag or a command keel does not have', () => {
  const program = buildProgram();
  assert.match(
    judge(program, words('--tenant acme writs keygen --dir keys')) ?? '',
    /--dir is not an option of keel writs keygen/,
  );
  assert.match(judge(program, words('writs keygen --tenant acme --dir keys')) ?? '', /--dir/);
  assert.equal(judge(program, words('--tenant acme writs keygen --out keys/')), undefined);
  assert.match(judge(program, words('runz ls')) ?? '', /runz is not a keel command/);
  assert.match(judge(program, words('runs lz')) ?? '', /lz is not a command of keel runs/);
  assert.match(judge(program, words('--stor x runs ls')) ?? '', /--stor is not a global option/);
  assert.equal(judge(program, words('--store x runs ls --status completed --json')), undefined);
  assert.deepEqual(invocations('KEEL_STORE=x npx keel runs ls | head && keel verify <run> # note --nope'), [
    ['runs', 'ls'],
    ['verify', '<run>'],
  ]);
});
