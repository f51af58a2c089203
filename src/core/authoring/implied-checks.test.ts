/**
 * Reads keyed by more than the step's subject (grammar/implied-reads.ts), over a repair desk no
 * corpus uses: a read tool that "says whether" something holds returns a yes/no named by the
 * verb's participle (`qualified`); it supplies a yes/no argument named for what it reads and that
 * answer (`warranty_qualified`) when its key is an id the step's tool takes and fields the event
 * carries by name. The read is added first and read back under "Assumed"; a key part the event does
 * not carry, or an argument named for something else, stays a question.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { tool } from '../../../test/authoring/catalog-tool.ts';
import type { StepSpec } from '../spec/workflow-spec.ts';
import type { ToolDescriptor } from '../tools/tool-descriptor.ts';
import { compileRequest } from './compile-request.ts';
import { describedOutputs } from './grammar/implied-reads.ts';
import { type DraftCatalog, draftSpec } from './index.ts';

const checkWarranty = (verb = 'qualifies for', key = 'warranty_code') =>
  tool({
    name: 'check_warranty',
    effect: 'read',
    description: `Reads a warranty and says whether a device ${verb} it.`,
    args: {
      type: 'object',
      required: [key, 'device_id'],
      properties: { [key]: { type: 'string' }, device_id: { type: 'string' } },
    },
  });

const replaceDevice = (flag = 'warranty_qualified') =>
  tool({
    name: 'replace_device',
    destructive: true,
    description: 'Ships a replacement device to its owner.',
    args: {
      type: 'object',
      required: ['device_id', flag],
      properties: { device_id: { type: 'string' }, [flag]: { const: true } },
    },
  });

const desk = (
  tools: ToolDescriptor[] = [checkWarranty(), replaceDevice()],
  payload = ['device_id', 'warranty_code'],
): DraftCatalog => ({ tools, events: [{ type: 'repair.requested', payload }] });

const draft = (request: string, catalog = desk()) => {
  const compiled = compileRequest(request, catalog);
  return { compiled, d: draftSpec(compiled, catalog) };
};
const toolStep = (s: unknown) => s as StepSpec;

test("a read that 'says whether' something holds returns a yes/no named by the verb's participle", () => {
  assert.deepEqual(describedOutputs('Reads a warranty and says whether a device qualifies for it.'), [
    { name: 'qualified', yesNo: true },
  ]);
  assert.deepEqual(describedOutputs('Checks whether the parcel passes the inspection.'), [
    { name: 'passed', yesNo: true },
  ]);
  assert.deepEqual(describedOutputs('Reads a warranty and says whether it is valid: owner.'), [
    { name: 'owner', yesNo: false },
  ]);
});

test('a yes/no argument named for what a read reads and its answer is that read, added first, Assumed', () => {
  const { d, compiled } = draft('when a repair is requested, replace the device');
  assert.equal(d.publishable, true, JSON.stringify(d.questions));
  const [check, replace] = d.spec!.steps.map(toolStep);
  assert.equal(check!.tool, 'check_warranty');
  assert.deepEqual(check!.args, {
    warranty_code: '{{event.payload.warranty_code}}',
    device_id: '{{event.payload.device_id}}',
  });
  assert.equal(replace!.args!.warranty_qualified, `{{steps.${check!.name}.output.qualified}}`);
  assert.match(compiled.assumptions!.join('\n'), /check_warranty\) is added first/);
  assert.match(d.readBack!.text, /Assumed:[\s\S]*check_warranty/);
});

test('a read whose key the event does not carry, or an argument named for another thing, stays a question', () => {
  const uncarried = draft('when a repair is requested, replace the device', desk(undefined, ['device_id'])).d;
  assert.equal(uncarried.publishable, false);
  assert.ok(uncarried.questions.some((q) => q.about === 'args: replace_device.warranty_qualified'));
  assert.ok(!uncarried.spec?.steps.some((s) => toolStep(s).tool === 'check_warranty'));
  const other = draft(
    'when a repair is requested, replace the device',
    desk([checkWarranty(), replaceDevice('battery_qualified')]),
  ).d;
  assert.equal(other.publishable, false);
  assert.ok(other.questions.some((q) => q.about === 'args: replace_device.battery_qualified'));
});

test('property: any third-person verb of a read and any key name fill the argument named for them', () => {
  const verbs = fc.constantFrom(
    ['qualifies for', 'qualified'],
    ['matches', 'matched'],
    ['passes', 'passed'],
    ['complies with', 'complied'],
    ['conforms to', 'conformed'],
  );
  fc.assert(
    fc.property(
      verbs,
      fc.constantFrom('warranty', 'plan', 'contract', 'po'),
      fc.constantFrom('code', 'number', 'id'),
      ([verb, done], noun, suffix) => {
        const key = `${noun}_${suffix}`;
        const flag = `${noun}_${done}`;
        const catalog = desk([checkWarranty(verb, key), replaceDevice(flag)], ['device_id', key]);
        const d = draftSpec(
          compileRequest('when a repair is requested, replace the device', catalog),
          catalog,
        );
        assert.equal(d.publishable, true, `${verb} ${key}: ${JSON.stringify(d.questions)}`);
        const steps = d.spec!.steps.map(toolStep);
        assert.deepEqual(
          steps.map((s) => s.tool),
          ['check_warranty', 'replace_device'],
        );
        assert.equal(steps[1]!.args![flag], `{{steps.${steps[0]!.name}.output.${done}}}`);
      },
    ),
  );
});
