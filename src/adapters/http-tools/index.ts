export { BODY_EXCERPT_CHARS, type HttpToolOptions, httpTool, RECONCILED_ATTEMPTS } from './http-tool.ts';
