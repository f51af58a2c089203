/**
 * The default planner: the spec's templates fill every argument, so it has nothing to choose. A step
 * with an open model slot is refused under it (`slot_unfilled`): it never asks a model.
 */
import type { Planner } from '../ports/index.ts';

export const templatePlanner: Planner = {
  name: 'template',
  fill: async () => ({}),
};
