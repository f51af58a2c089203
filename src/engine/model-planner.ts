/**
 * The model planner: fills each open slot of a step with the model's answer to that slot's prompt.
 * It asks only through the view's ModelAccess (drawn as source `x-model`, ledgered first, served from
 * the record on replay), so it never holds a provider; with no model access it fills nothing.
 * On a step without open slots it does nothing, which is the template planner's behaviour.
 */
import type { Planner } from '../ports/index.ts';

export function modelPlanner(): Planner {
  return {
    name: 'model',
    async fill(view) {
      const model = view.model;
      if (!model) return {};
      const values: Record<string, unknown> = {};
      for (const slot of view.slots) values[slot.arg] = await model.complete(slot.arg);
      return values;
    },
  };
}
