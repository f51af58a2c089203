export {
  type ApprovalDecision,
  ENGINE_VERSION,
  Engine,
  type EngineOptions,
  type RunSummary,
} from './engine.ts';
export { ToolRegistry } from './tool-registry.ts';
