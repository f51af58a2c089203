import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { TOOL_EFFECTS } from '../tools/index.ts';
import {
  CAUTION_FIELDS,
  type CautionFlags,
  type CautionOverride,
  cautionFromAnnotations,
  cautionRank,
  mergeCaution,
} from './mcp-caution.ts';
import { mcpToolDescriptor } from './mcp-tool-descriptor.ts';

const flags: fc.Arbitrary<CautionFlags> = fc.record(
  {
    effect: fc.constantFrom(...TOOL_EFFECTS),
    destructive: fc.boolean(),
    idempotent: fc.boolean(),
    approval: fc.constant('always' as const),
  },
  { requiredKeys: ['effect', 'destructive', 'idempotent'] },
);
const override: fc.Arbitrary<CautionOverride> = fc.record(
  {
    effect: fc.constantFrom(...TOOL_EFFECTS),
    destructive: fc.boolean(),
    idempotent: fc.boolean(),
    approval: fc.constant('always' as const),
  },
  { requiredKeys: [] },
);

describe('cautionFromAnnotations', () => {
  it('applies the MCP defaults when no hint is given: external, destructive, not idempotent', () => {
    assert.deepEqual(cautionFromAnnotations(undefined), {
      effect: 'external',
      destructive: true,
      idempotent: false,
    });
    assert.deepEqual(cautionFromAnnotations({}), {
      effect: 'external',
      destructive: true,
      idempotent: false,
    });
  });

  it('reads readOnlyHint as a read tool, whatever the other hints say, but destructiveHint true', () => {
    assert.deepEqual(
      cautionFromAnnotations({ readOnlyHint: true, destructiveHint: false, openWorldHint: true }),
      { effect: 'read', destructive: false, idempotent: true },
    );
    assert.deepEqual(cautionFromAnnotations({ readOnlyHint: true, idempotentHint: false }), {
      effect: 'read',
      destructive: false,
      idempotent: true,
    });
  });

  it('takes a tool that says it is read-only and destructive at its more cautious word', () => {
    assert.deepEqual(
      cautionFromAnnotations({ readOnlyHint: true, destructiveHint: true, openWorldHint: true }),
      { effect: 'external', destructive: true, idempotent: false },
    );
    assert.deepEqual(
      cautionFromAnnotations({ readOnlyHint: true, destructiveHint: true, openWorldHint: false }),
      {
        effect: 'write',
        destructive: true,
        idempotent: false,
      },
    );
  });

  it('reads openWorldHint false as write, destructiveHint false and idempotentHint true as they say', () => {
    assert.deepEqual(
      cautionFromAnnotations({
        readOnlyHint: false,
        openWorldHint: false,
        destructiveHint: false,
        idempotentHint: true,
      }),
      { effect: 'write', destructive: false, idempotent: true },
    );
  });
});

describe('mergeCaution', () => {
  it('is never less cautious than either side, and refuses exactly the overrides that would lower caution', () => {
    fc.assert(
      fc.property(flags, override, (base, o) => {
        const r = mergeCaution(base, o);
        const lowers = CAUTION_FIELDS.filter(
          (f) => o[f] !== undefined && cautionRank(f, o[f]) < cautionRank(f, base[f]),
        );
        if (!r.ok) {
          assert.deepEqual(
            r.problems.map((p) => p.field),
            lowers,
          );
          return;
        }
        assert.deepEqual(lowers, []);
        for (const f of CAUTION_FIELDS) {
          assert.ok(cautionRank(f, r.flags[f]) >= cautionRank(f, base[f]), `${f} below the server's`);
          if (o[f] !== undefined)
            assert.ok(cautionRank(f, r.flags[f]) >= cautionRank(f, o[f]), `${f} below the file's`);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('applies an override toward more caution as written', () => {
    const r = mergeCaution(
      { effect: 'read', destructive: false, idempotent: true },
      { effect: 'external', approval: 'always', idempotent: false },
    );
    assert.deepEqual(r, {
      ok: true,
      flags: { effect: 'external', destructive: false, idempotent: false, approval: 'always' },
    });
  });

  it('names the field an override would make less cautious', () => {
    const r = mergeCaution(
      { effect: 'external', destructive: true, idempotent: false },
      { destructive: false },
    );
    assert.deepEqual(r, { ok: false, problems: [{ field: 'destructive', from: true, to: false }] });
  });
});

describe('mcpToolDescriptor', () => {
  const wipe = { name: 'wipe', description: 'Wipes.', inputSchema: { type: 'object' } };

  it('is an error naming server, tool and field when the tools file lowers caution', () => {
    assert.throws(
      () => mcpToolDescriptor('files', wipe, { effect: 'read' }),
      (e: Error & { details?: Record<string, unknown> }) => {
        assert.match(
          e.message,
          /MCP server "files", tool "wipe": overrides\.effect: "read" is less cautious/,
        );
        assert.deepEqual(
          { server: e.details?.server, tool: e.details?.tool, field: e.details?.field },
          { server: 'files', tool: 'wipe', field: 'effect' },
        );
        return true;
      },
    );
  });

  it('names the tool <server>.<tool>, scopes it <server>.*, drops a $schema of another draft', () => {
    const d = mcpToolDescriptor('files', {
      name: 'read file',
      inputSchema: { $schema: 'http://json-schema.org/draft-07/schema#', type: 'object' },
      outputSchema: { type: 'object' },
      annotations: { readOnlyHint: true },
    });
    assert.equal(d.name, 'files.read_file');
    assert.deepEqual(d.scopes, ['files.*']);
    assert.deepEqual(d.args, { type: 'object' });
    assert.deepEqual(d.result, { type: 'object' });
    assert.equal(d.effect, 'read');
  });

  it('refuses an override that makes a read-only tool destructive without raising its effect', () => {
    const lookup = { ...wipe, name: 'lookup', annotations: { readOnlyHint: true } };
    assert.throws(
      () => mcpToolDescriptor('files', lookup, { destructive: true }),
      (e: Error & { details?: Record<string, unknown> }) => {
        assert.match(
          e.message,
          /MCP server "files", tool "lookup": overrides\.destructive: a read tool changes nothing, so it cannot be destructive/,
        );
        assert.equal(e.details?.field, 'destructive');
        return true;
      },
    );
    const d = mcpToolDescriptor('files', lookup, { destructive: true, effect: 'write' });
    assert.deepEqual([d.effect, d.destructive], ['write', true]);
  });

  it("adds an override's cost, and refuses one that would make a read tool move money", () => {
    const pay = {
      ...wipe,
      name: 'pay',
      inputSchema: { type: 'object', properties: { usd: { type: 'number' } }, required: ['usd'] },
    };
    assert.deepEqual(mcpToolDescriptor('bank', pay, { cost: { fromArg: 'usd' } }).cost, { fromArg: 'usd' });
    assert.throws(
      () =>
        mcpToolDescriptor(
          'bank',
          { ...pay, annotations: { readOnlyHint: true } },
          { cost: { fromArg: 'usd' } },
        ),
      /tool "pay": overrides\.cost\.fromArg: a cost taken from an argument is money the tool moves/,
    );
  });
});
