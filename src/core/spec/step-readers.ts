/**
 * Which step reads another step's output: the first later step of the spec whose arguments (a
 * model slot's prompt included) hold a template `steps.<name>.output…`. Pure: the spec in, a name
 * out. A simulated run uses it to decide whether a suppressed step's missing output matters.
 */
import { toolSteps } from './flow-steps.ts';
import { parseTemplatePath } from './scan-templates.ts';
import { templateRefs } from './template-refs.ts';
import type { WorkflowSpec } from './workflow-spec.ts';

/** The first step after `step` that reads its output, or undefined when none does. */
export function laterReaderOf(spec: WorkflowSpec, step: string): string | undefined {
  const steps = toolSteps(spec);
  const at = steps.findIndex((s) => s.name === step);
  if (at < 0) return undefined;
  for (const later of steps.slice(at + 1)) {
    for (const t of templateRefs(later.args)) {
      const ref = parseTemplatePath(t.path);
      if (typeof ref !== 'string' && ref.root === 'step' && ref.step === step) return later.name;
    }
  }
  return undefined;
}
