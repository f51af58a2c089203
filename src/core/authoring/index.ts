export { eventWords, explainSpec, type ReadBack } from './explain-spec.ts';
