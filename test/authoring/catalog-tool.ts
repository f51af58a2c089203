/**
 * A tool descriptor for a test catalog: the name, description and args a test says, the rest the
 * common defaults (not destructive, a write, idempotent, no scopes), each overridable.
 */
import type { ToolDescriptor } from '../../src/core/tools/index.ts';

export const tool = (t: Partial<ToolDescriptor> & Pick<ToolDescriptor, 'name' | 'description' | 'args'>) =>
  ({ destructive: false, effect: 'write', idempotent: true, scopes: [], ...t }) as ToolDescriptor;
