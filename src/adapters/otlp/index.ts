export { type OtlpPostResult, postOtlpJson } from './otlp-http.ts';
