/**
 * Notifications, the computing half: which sinks hear of a question, what they are sent, how a webhook body is
 * signed, and when a failed webhook is tried again. Returns values; the sending is src/surfaces/notify.
 */
export { payloadOf, slackBodyOf, summaryOf } from './payload.js';
export type { NotifyEvent, NotifyField, NotifyPayload } from './payload.js';
export { sinksFor } from './route.js';
export { SIGNATURE_HEADER, signatureOf, verifySignature } from './sign.js';
export { RETRY_DELAYS_MS, DEFAULT_ATTEMPT_MS, DEFAULT_RETRIES, retryDelays, notifySecretRef, sinkKind } from './plan.js';
