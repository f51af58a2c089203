/**
 * What the input limits leave a hostile spec to cost (bench/run.ts prints it): the CPU time to
 * parse and refuse, or accept, the most expensive texts each limit lets through — the YAML
 * parser spends a few microseconds per token, so these are the longest a publish request can hold
 * the event loop. Medians of several rounds, in ms of CPU.
 */
import { parseSpec, SPEC_LIMITS } from '../src/core/spec/index.ts';

const HEAD = 'id: a\nversion: 1\nstatus: DRAFT\nlimits: {maxSteps: 1, maxCostUsd: 0}\n';
const SEPARATORS = 2 * SPEC_LIMITS.maxKeys - 50;

/** The shapes that come closest to each limit without crossing the bytes or separators checks. */
function shapes(): Record<string, string> {
  const keys = (n: number, indent: string) =>
    Array.from({ length: n }, (_, i) => `${indent}k${i}: 1`).join('\n');
  return {
    'top-level keys (refused: maxKeys)': `${HEAD}steps: [{name: s, tool: core.noop}]\n${keys(SEPARATORS - 6, '')}\n`,
    'list items (refused: maxKeys)': `${HEAD}steps: [{name: s, tool: core.noop}]\nx:\n${Array(SEPARATORS - 7)
      .fill('- 1')
      .join('\n')}\n`,
    'argument keys (accepted)': `${HEAD}steps:\n  - name: s\n    tool: core.noop\n    args:\n${keys(SPEC_LIMITS.maxKeys - 10, '      ')}\n`,
    'templates in one string (accepted)': `${HEAD}steps: [{name: s, tool: core.noop, args: {a: "${'{{event.subject}}'.repeat(Math.floor(SPEC_LIMITS.maxStringLength / 17))}"}}]\n`,
  };
}

function cpuMs(fn: () => void): number {
  const c0 = process.cpuUsage();
  fn();
  const c = process.cpuUsage(c0);
  return (c.user + c.system) / 1000;
}

export function inputLimitFigures(rounds: number): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [name, text] of Object.entries(shapes())) {
    const times: number[] = [];
    for (let r = 0; r < rounds; r++) {
      times.push(
        cpuMs(() => {
          try {
            parseSpec(text, 'bench.yaml');
          } catch {
            // Refused: the time to refuse is the figure.
          }
        }),
      );
    }
    times.sort((a, b) => a - b);
    out[`spec parse at the limits, ${name}, ms CPU`] = times[Math.floor(times.length / 2)]!;
  }
  return out;
}
