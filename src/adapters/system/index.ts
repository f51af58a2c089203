export { systemSources } from './system-sources.ts';
