export { BODY_EXCERPT_CHARS, type HttpToolOptions, httpTool } from './http-tool.ts';
