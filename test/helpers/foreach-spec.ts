/**
 * A workflow with a bounded iteration (`forEach:` over the event's lines, at most 3, two steps per
 * item, the second reading the first of its own iteration) between two plain steps, and spy tools
 * for it: the fixture of the iteration tests (engine, verify, property, recovery).
 */
import { type SpyTool, spyTool } from '../../src/testing/index.ts';

export const FOREACH_SPEC = `
id: refunds
version: 1
status: LIVE
triggers: [{event: refund.requested}]
steps:
  - {name: lookup, tool: get_order, args: {order: "{{ event.subject }}"}}
  - name: refund_lines
    forEach: {items: "{{ event.payload.lines }}", as: line, max: 3}
    steps:
      - {name: refund, tool: issue_refund, args: {amount: "{{ line.amount }}", sku: "{{ line.sku }}"}}
      - {name: note, tool: add_note, args: {text: "refunded {{ line.sku }}", refund: "{{ steps.refund.output.id }}"}}
  - {name: reply, tool: send_reply, args: {refunds: "{{ steps.refund_lines.output }}"}}
limits: {maxSteps: 8, maxCostUsd: 0}
`;

export function foreachTools(): Record<string, SpyTool> {
  return {
    get_order: spyTool('get_order', { effect: 'read' }),
    issue_refund: spyTool('issue_refund', {
      idempotent: false,
      handler: (a, ctx) => ({ id: `r-${String(a.sku)}`, key: ctx.idempotencyKey }),
    }),
    add_note: spyTool('add_note'),
    send_reply: spyTool('send_reply'),
  };
}

export const lines = (n: number) =>
  Array.from({ length: n }, (_, i) => ({ sku: `s${i}`, amount: 100 * (i + 1) }));
