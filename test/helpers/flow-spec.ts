/**
 * A workflow with a guarded step and a choice of three ways (two branches and an else), and spy
 * tools for it: the fixture of the conditions tests (engine, verify, property).
 */
import { type SpyTool, spyTool } from '../../src/testing/index.ts';

export const FLOW_SPEC = `
id: desk
version: 1
status: LIVE
triggers: [{event: refund.requested}]
steps:
  - {name: lookup, tool: get_order, args: {tier: "{{ event.payload.tier }}"}}
  - name: tag_review
    tool: add_tag
    args: {tag: review}
    if: payload.refund_amount > 50
  - name: route
    choose:
      - when: payload.refund_amount > 50
        steps:
          - {name: ask_lead, tool: ask_lead, args: {amount: "{{ event.payload.refund_amount }}"}}
      - when: steps.lookup.output.tier == "gold"
        steps:
          - {name: gold_note, tool: add_tag, args: {tag: gold}}
          - {name: gold_refund, tool: refund, args: {amount: "{{ event.payload.refund_amount }}"}}
    else:
      - {name: plain_refund, tool: refund, args: {amount: "{{ event.payload.refund_amount }}"}}
  - {name: reply, tool: send_reply, args: {text: done}}
limits: {maxSteps: 5, maxCostUsd: 0}
`;

export function flowTools(): Record<string, SpyTool> {
  return {
    get_order: spyTool('get_order', { effect: 'read', handler: (a) => ({ tier: a.tier ?? 'basic' }) }),
    add_tag: spyTool('add_tag'),
    ask_lead: spyTool('ask_lead'),
    refund: spyTool('refund'),
    send_reply: spyTool('send_reply'),
  };
}
