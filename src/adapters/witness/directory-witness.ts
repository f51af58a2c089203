/**
 * A checkpoint witness on the file system (docs/audit.md, "Witness"): a directory holding, per
 * tenant, one file per signed checkpoint, `<dir>/<tenant>/<seq, 12 digits>.json`. Each file is
 * written whole to a temporary name, flushed, then linked into place, which fails if the name is
 * taken: a checkpoint the witness holds is never overwritten, and a crash leaves no half file.
 * Put the directory where the database's owner cannot write (another machine, a mount, a bucket
 * synced off site). Given a file instead, it is the one checkpoint an auditor holds: read only.
 */
import { randomBytes } from 'node:crypto';
import { link, mkdir, open, readdir, readFile, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { type Checkpoint, parseCheckpointRecord, signedRecord } from '../../core/checkpoint/index.ts';
import { ErrorCode, KeelError } from '../../core/errors.ts';
import type { CheckpointWitness } from '../../ports/index.ts';

const FILE = /^(\d{12})\.json$/;

/** A tenant's directory name: its name, percent-encoded, never `.` or `..`. */
const tenantDir = (tenant: string) => encodeURIComponent(tenant).replace(/^\./, '%2E');

const bad = (file: string, problem: string) =>
  new KeelError(ErrorCode.ledgerInvalid, `witness ${file} ${problem}`, { field: 'witness', file });

async function readRecord(file: string): Promise<Checkpoint> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    throw new KeelError(
      ErrorCode.usage,
      `--witness: cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
      { field: 'witness', file },
    );
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw bad(file, 'is not JSON');
  }
  const r = parseCheckpointRecord(value);
  if (!r.ok) throw bad(file, `is not a signed checkpoint: it ${r.problem}`);
  return r.checkpoint;
}

/** The witness at `path`: an existing file is one checkpoint (read only); anything else a directory. */
export class DirectoryWitness implements CheckpointWitness {
  constructor(readonly name: string) {}

  private async isFile(): Promise<boolean> {
    return (await stat(this.name).catch(() => undefined))?.isFile() === true;
  }

  async last(tenant: string): Promise<Checkpoint | undefined> {
    if (await this.isFile()) {
      const c = await readRecord(this.name);
      if (c.tenant !== tenant)
        throw new KeelError(
          ErrorCode.usage,
          `--witness: ${this.name} is a checkpoint of tenant ${c.tenant}, not of ${tenant}`,
          { field: 'witness' },
        );
      return c;
    }
    const dir = join(this.name, tenantDir(tenant));
    let names: string[];
    try {
      names = await readdir(dir);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw new KeelError(
        ErrorCode.usage,
        `--witness: cannot read ${dir}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
        { field: 'witness' },
      );
    }
    const last = names
      .filter((n) => FILE.test(n))
      .sort()
      .at(-1);
    if (!last) return undefined;
    const file = join(dir, last);
    const c = await readRecord(file);
    if (c.tenant !== tenant || c.seq !== Number(FILE.exec(last)![1]))
      throw bad(file, `holds checkpoint ${c.seq} of tenant ${c.tenant}: not what its name says`);
    return c;
  }

  async append(c: Checkpoint): Promise<void> {
    if (await this.isFile())
      throw new KeelError(
        ErrorCode.usage,
        `--witness: ${this.name} is a file (one checkpoint an auditor holds); give a directory to keep checkpoints in`,
        { field: 'witness' },
      );
    const dir = join(this.name, tenantDir(c.tenant));
    await mkdir(dir, { recursive: true });
    const target = join(dir, `${String(c.seq).padStart(12, '0')}.json`);
    const temp = join(dir, `.${c.seq}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
    const f = await open(temp, 'wx');
    try {
      await f.writeFile(`${JSON.stringify(signedRecord(c), null, 2)}\n`);
      await f.sync();
    } finally {
      await f.close();
    }
    try {
      await link(temp, target);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      const held = await readRecord(target);
      if (held.hash !== c.hash)
        throw bad(
          target,
          `holds checkpoint ${c.seq} with hash ${held.hash}, not ${c.hash}: the witness keeps what it holds (two chains were signed)`,
        );
    } finally {
      await unlink(temp).catch(() => undefined);
    }
    const d = await open(dir, 'r');
    try {
      await d.sync();
    } finally {
      await d.close();
    }
  }
}
