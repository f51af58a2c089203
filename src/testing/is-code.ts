import { isKeelError } from '../core/errors.ts';

/** For `assert.rejects`: the error is a KeelError with this code. */
export const isCode = (code: string) => (e: unknown) => isKeelError(e) && e.code === code;
