/**
 * Keel as an MCP server (`keel mcp`, and `/mcp` under `keel serve`): each LIVE (or AUTONOMOUS)
 * workflow of one tenant is an MCP tool taking `{subject, event_id, payload}` — the event's subject,
 * its id, and a payload of the trigger's `payloadSchema`; calling it starts a governed run of that
 * version, under the same checks as any run, and answers the run id, status and plain-language
 * history. The event id (given, or derived from the call's arguments) and a fixed time make the
 * event, and so the run, a function of the call: the same call twice is one run. `keel_run_status`
 * reads a run again. Approvals stay with people: nothing here approves, denies, promotes or edits;
 * the tenant is fixed when the server is made.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  ListToolsRequestSchema,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import type { Keel } from '../../app/keel.ts';
import { hashOf } from '../../core/canonical/index.ts';
import { isKeelError } from '../../core/errors.ts';
import { templateRefs, toolSteps } from '../../core/spec/index.ts';
import { formatArgProblem, type JsonSchema, validateValue } from '../../core/tools/index.ts';
import { KEYED_EVENT_TIME } from '../../openwop/host.ts';
import type { VersionRecord } from '../../ports/index.ts';

export const RUN_STATUS_TOOL = 'keel_run_status';
const TOOL_PREFIX = 'start_';
const ACTIVE = new Set(['LIVE', 'AUTONOMOUS']);

/** The MCP tool name of a workflow: `start_` and its id, with any character MCP names refuse as `_`. */
export function toolNameOf(workflowId: string): string {
  return `${TOOL_PREFIX}${workflowId.replace(/[^A-Za-z0-9_.-]/g, '_')}`.slice(0, 128);
}

/** The newest LIVE or AUTONOMOUS version of each of the tenant's workflows. */
async function activeVersions(keel: Keel, tenant: string): Promise<Map<string, VersionRecord>> {
  const out = new Map<string, VersionRecord>();
  for (const v of await keel.workflows.list(tenant)) {
    if (!ACTIVE.has(v.status)) continue;
    const seen = out.get(v.workflowId);
    if (!seen || v.version > seen.version) out.set(v.workflowId, v);
  }
  return out;
}

/** What the workflow's steps may do, as MCP hints: read-only when every tool reads, destructive when any is. */
function hintsOf(keel: Keel, v: VersionRecord): Tool['annotations'] {
  const tools = toolSteps(v.spec).map((s) => keel.tools.get(s.tool));
  const readOnly = tools.every((t) => t?.effect === 'read');
  const destructive = tools.some((t) => t === undefined || t.destructive);
  return {
    readOnlyHint: readOnly,
    destructiveHint: destructive,
    idempotentHint: true,
    openWorldHint: !readOnly,
  };
}

/** The longest subject or event id, as an event takes it (core/run/event.ts). */
const MAX_EVENT_FIELD = 512;

/** Whether any step reads `{{event.subject}}`: then a call must say what the run is about. */
function readsSubject(v: VersionRecord): boolean {
  return toolSteps(v.spec).some((s) =>
    templateRefs(s.args ?? {}).some((r) => /^event\.subject\b/.test(r.path)),
  );
}

/** The input schema of a workflow's start tool: `{subject, event_id, payload}`, closed. */
export function startInputSchema(v: VersionRecord): JsonSchema {
  const trigger = v.spec.triggers.find((t) => t.payloadSchema) ?? v.spec.triggers[0];
  const payload = { ...(trigger?.payloadSchema ?? {}), type: 'object' };
  const required = [
    ...(readsSubject(v) ? ['subject'] : []),
    ...(payloadRequired(payload) ? ['payload'] : []),
  ];
  return {
    type: 'object',
    properties: {
      subject: {
        type: 'string',
        minLength: 1,
        maxLength: MAX_EVENT_FIELD,
        description:
          'what the run is about (the event subject, e.g. a ticket id); the steps read it as {{event.subject}}',
      },
      event_id: {
        type: 'string',
        minLength: 1,
        maxLength: MAX_EVENT_FIELD,
        description:
          'the event id: the same id (with the same arguments) is the same run, started once; without one, the id is derived from subject and payload, so the same call twice is one run',
      },
      payload: { ...payload, description: 'the event payload' },
    },
    ...(required.length > 0 ? { required } : {}),
    additionalProperties: false,
  };
}

/** A payload schema that requires fields: an empty payload cannot fit, so the payload is required. */
function payloadRequired(schema: Record<string, unknown>): boolean {
  return Array.isArray(schema.required) && schema.required.length > 0;
}

function toolOf(keel: Keel, v: VersionRecord): Tool {
  const about = v.spec.description ? `${v.spec.description} ` : '';
  return {
    name: toolNameOf(v.workflowId),
    title: `Start ${v.workflowId} v${v.version}`,
    description: `${about}Starts a governed run of workflow ${v.workflowId} v${v.version} (${v.status}) for an event with this subject, id and payload; the same call twice is one run. Every step is checked against schema, writ and policy; a step that needs approval waits for a person, who approves it outside MCP.`,
    inputSchema: startInputSchema(v) as Tool['inputSchema'],
    annotations: hintsOf(keel, v),
  };
}

const STATUS_TOOL: Tool = {
  name: RUN_STATUS_TOOL,
  title: 'Run status',
  description: "A run's status and plain-language history, by run id (the tenant's runs only).",
  inputSchema: {
    type: 'object',
    properties: { runId: { type: 'string', description: 'the run id a start_ tool answered' } },
    required: ['runId'],
    additionalProperties: false,
  },
  annotations: { readOnlyHint: true, openWorldHint: false },
};

const text = (t: string, isError = false): CallToolResult => ({
  content: [{ type: 'text', text: t }],
  ...(isError ? { isError: true } : {}),
});

async function runReport(
  keel: Keel,
  tenant: string,
  runId: string,
  created?: boolean,
): Promise<CallToolResult> {
  const run = await keel.runs.get(tenant, runId);
  const history = await keel.runs.history(tenant, runId);
  const waiting =
    run.status === 'waiting_approval'
      ? '\nThe run waits for a person to approve a step (keel approvals ls, or the console); an MCP client cannot approve it.'
      : '';
  const again = created === false ? ' (the same call was made before: this is that run)' : '';
  const body = [
    `Run ${runId} of ${run.workflowId} v${run.version}: ${run.status}${again}.${waiting}`,
    '',
    ...history.map((h) => `${h.seq}. ${h.text}`),
  ].join('\n');
  return {
    ...text(body),
    structuredContent: {
      runId,
      workflowId: run.workflowId,
      version: run.version,
      status: run.status,
      history: history.map((h) => h.text),
    },
  };
}

export interface KeelMcpOptions {
  /** Told of unexpected failures (default: nowhere); an MCP client only sees a short error text. */
  readonly log?: (e: unknown) => void;
  readonly version?: string;
}

/** An MCP server over `keel` for `tenant` (not connected: give it a transport). */
export function keelMcpServer(keel: Keel, tenant: string, o: KeelMcpOptions = {}): Server {
  const server = new Server(
    { name: 'keel', version: o.version ?? '1' },
    {
      capabilities: { tools: { listChanged: false } },
      instructions:
        'Each start_ tool starts a governed Keel workflow run; keel_run_status reads a run. Approvals are made by people, never through MCP.',
    },
  );
  server.setRequestHandler(ListToolsRequestSchema, async () => {
    const versions = await activeVersions(keel, tenant);
    return { tools: [...[...versions.values()].map((v) => toolOf(keel, v)), STATUS_TOOL] };
  });
  server.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
    const { name } = req.params;
    const args = (req.params.arguments ?? {}) as Record<string, unknown>;
    try {
      if (name === RUN_STATUS_TOOL) {
        if (typeof args.runId !== 'string') return text('runId: expected a run id (a string)', true);
        return await runReport(keel, tenant, args.runId);
      }
      const versions = await activeVersions(keel, tenant);
      const v = [...versions.values()].find((x) => toolNameOf(x.workflowId) === name);
      if (!v) return text(`no LIVE workflow has the tool name ${name}; list the tools again`, true);
      const trigger = v.spec.triggers.find((t) => t.payloadSchema) ?? v.spec.triggers[0];
      // Checked whole before anything is started: subject, event_id and the payload's own schema.
      const problems = validateValue(startInputSchema(v), args);
      if (problems.length > 0)
        return text(`the arguments do not fit: ${problems.map(formatArgProblem).join('; ')}`, true);
      const payload = (args.payload ?? {}) as Record<string, unknown>;
      const subject = typeof args.subject === 'string' ? args.subject : '';
      // The event is a function of the call: its id is the one given, or derived from the subject
      // and payload; its time is fixed. So the same call twice is the same event, and the same run.
      const id =
        typeof args.event_id === 'string'
          ? args.event_id
          : `mcp-${hashOf({ workflowId: v.workflowId, subject, payload }).slice(7, 39)}`;
      const event = {
        id,
        type: trigger?.event ?? 'mcp.call',
        source: 'mcp',
        subject,
        payload,
        time: KEYED_EVENT_TIME,
      };
      // Over HTTP (`/mcp` under keel serve) the request's W3C traceparent parents the run's span.
      const tp = extra.requestInfo?.headers?.traceparent;
      const run = await keel.runs.start(tenant, v.workflowId, event, {
        version: v.version,
        ...(typeof tp === 'string' ? { traceparent: tp } : {}),
      });
      return await runReport(keel, tenant, run.runId, run.created);
    } catch (e) {
      if (isKeelError(e)) return text(`${e.code}: ${e.message}`, true);
      o.log?.(e);
      return text('Keel failed to handle the call; see its log', true);
    }
  });
  return server;
}
