import { randomBytes } from 'node:crypto';

// Ids come from a pooled random buffer: one getrandom call per 256 ids instead of one each (the broker opens many
// questions, and every call served gets a call id and a task id).
let idPool = Buffer.alloc(0);
let idOffset = 0;
function hex16(): string {
  if (idOffset + 8 > idPool.length) {
    idPool = randomBytes(2048);
    idOffset = 0;
  }
  const hex = idPool.toString('hex', idOffset, idOffset + 8);
  idOffset += 8;
  return hex;
}
/** `elc-<16 hex>`: a question. */
export const newElicitationId = (): string => `elc-${hex16()}`;
/** `cal-<16 hex>`: a tool call (the trace of the questions it asks). */
export const newCallId = (): string => `cal-${hex16()}`;
/** `tsk-<16 hex>`: a call held by the daemon, whose result can be collected later. */
export const newTaskId = (): string => `tsk-${hex16()}`;

export const ELICITATION_ID = /^elc-[0-9a-f]{16}$/;
export const CALL_ID = /^cal-[0-9a-f]{16}$/;
export const TASK_ID = /^tsk-[0-9a-f]{16}$/;
