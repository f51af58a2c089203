export {
  loadRecordedModelProvider,
  type RecordedModelProvider,
  type RecordedResponse,
  recordedModelProvider,
} from './recorded-model-provider.ts';
export { type RecordingModelProvider, recordingModelProvider } from './recording-model-provider.ts';
