/**
 * Reading the governance files the CLI is given: Ed25519 keys in PEM (a private key to sign, a
 * public one to trust) and writ files (`{"chain": [root, ..., writ]}`, every link well-formed).
 * A bad file is a writ_invalid error naming the path and the field; a private key read here is
 * never written anywhere.
 */
import { createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';
import { ErrorCode, KeelError } from '../core/errors.ts';
import { type SignedWrit, signedWritProblems } from '../core/writs/index.ts';
import { readJson, readText } from './input.ts';

/** A JSON file of the writ commands (a writ, a writ request): unreadable or malformed is writ_invalid. */
export const readWritJson = (path: string, what: string) => readJson(path, what, ErrorCode.writInvalid);

/** Reads an Ed25519 key, private or public, from a PEM file. */
export function readKey(path: string, type: 'private' | 'public'): KeyObject {
  const pem = readText(path, `${type} key`);
  try {
    const key = type === 'private' ? createPrivateKey(pem) : createPublicKey(pem);
    if (key.asymmetricKeyType !== 'ed25519')
      throw new Error(`it is a ${key.asymmetricKeyType} key, not Ed25519`);
    return key;
  } catch (e) {
    throw new KeelError(
      ErrorCode.writInvalid,
      `${type} key ${path}: not an Ed25519 ${type} key in PEM: ${(e as Error).message}`,
      {
        path,
        field: 'key',
      },
    );
  }
}

/** Reads a writ file: `{chain: [...]}`, every link well-formed. */
export function readChain(path: string): SignedWrit[] {
  const v = readWritJson(path, 'writ') as { chain?: unknown };
  if (typeof v !== 'object' || v === null || !Array.isArray(v.chain) || v.chain.length === 0)
    throw new KeelError(ErrorCode.writInvalid, `writ ${path}: chain: expected {"chain": [root, ..., writ]}`, {
      path,
      field: 'chain',
    });
  v.chain.forEach((w, i) => {
    const p = signedWritProblems(w)[0];
    if (p)
      throw new KeelError(ErrorCode.writInvalid, `writ ${path}: chain[${i}].${p.field}: ${p.message}`, {
        path,
        field: `chain[${i}].${p.field}`,
      });
  });
  return v.chain as SignedWrit[];
}
