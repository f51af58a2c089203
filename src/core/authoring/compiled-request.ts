/**
 * What the offline compiler (compile-request.ts) reads and what it gives back: the tenant's
 * catalog of tools and events, the draft spec, the questions it could not answer and its notes.
 * Types only; the model-backed compiler (model-draft.ts) and `draftSpec` share them.
 */
import type { WorkflowSpec } from '../spec/workflow-spec.ts';
import type { ToolDescriptor } from '../tools/tool-descriptor.ts';
import type { ExplainPolicy } from './explain-spec.ts';

/** An event the tenant's workflows can be started by, and the payload fields it carries. */
export interface EventShape {
  readonly type: string;
  readonly payload: readonly string[];
  /**
   * Short text values sample events show, by field ("severity": ["critical", "warning"]): a word of
   * a request that is one of them is a test on that field (`payload.severity == "critical"`).
   */
  readonly values?: Readonly<Record<string, readonly string[]>>;
  /** Subjects sample events show ("T-2001"): an id argument whose pattern they fit is the subject. */
  readonly subjects?: readonly string[];
  /** Payload fields every sample gives as true or false: a word naming one is a test of it ("verified"). */
  readonly flags?: readonly string[];
}

/** What a request is compiled against: the tenant's tools and, when known, its events. */
export interface DraftCatalog {
  readonly tools: readonly ToolDescriptor[];
  readonly events?: readonly EventShape[];
  /** The tenant's policy, read against the draft in its read-back (never used to compile). */
  readonly policy?: ExplainPolicy;
}

/** Something the compiler could not decide: `about` names the part, `candidates` the choices. */
export interface DraftQuestion {
  readonly about: string;
  readonly question: string;
  readonly candidates?: readonly string[];
}

export interface CompiledRequest {
  /** The spec as far as the request maps; absent when not even one step could be built. */
  readonly spec?: WorkflowSpec;
  readonly questions: readonly DraftQuestion[];
  /** What the compiler read that needs no answer ("close_ticket is destructive: it waits ..."). */
  readonly notes: readonly string[];
  /**
   * Every reading the compiler made that the words do not say outright (the event it chose, text it
   * read as a quotation, a number in words): the read-back lists them under "Assumed".
   */
  readonly assumptions?: readonly string[];
  /** The request as written, for the safety checks every draft passes (draft-safety.ts). */
  readonly request?: string;
}

export interface CompileOptions {
  /** The workflow id; derived from the trigger and steps when absent. */
  readonly id?: string;
}
