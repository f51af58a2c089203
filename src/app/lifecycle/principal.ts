/**
 * Who asks for a lifecycle change, and the two checks every change makes of it: someone decides
 * (`by`), and moving a version up (or past its gate) takes a person, never a service key.
 */
import { ErrorCode, KeelError } from '../../core/errors.ts';
import type { PrincipalKind } from '../../ports/index.ts';

/** Who asks for a lifecycle change: a person (the CLI, a human key) or an automation (a service key). */
export interface Principal {
  readonly by: string;
  readonly kind?: PrincipalKind;
}

/** Refuses a change nobody is named as deciding. */
export function requireBy(p: Principal): void {
  if (typeof p.by !== 'string' || p.by.trim() === '')
    throw new KeelError(ErrorCode.usage, 'by: expected who decides', { field: 'by' });
}

/** Refuses `what` to a service key, and to nobody. */
export function requireHuman(p: Principal, what: string): void {
  if (p.kind === 'service')
    throw new KeelError(
      ErrorCode.forbidden,
      `only a person may ${what}: this is a service key (create a key for a person with keel keys create --human)`,
      { by: p.by },
    );
  requireBy(p);
}
