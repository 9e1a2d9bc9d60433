import { randomBytes } from 'node:crypto';

/** `elc-<16 hex>`: a question. */
export const newElicitationId = (): string => `elc-${randomBytes(8).toString('hex')}`;
/** `cal-<16 hex>`: a tool call (the trace of the questions it asks). */
export const newCallId = (): string => `cal-${randomBytes(8).toString('hex')}`;
/** `tsk-<16 hex>`: a call held by the daemon, whose result can be collected later. */
export const newTaskId = (): string => `tsk-${randomBytes(8).toString('hex')}`;

export const ELICITATION_ID = /^elc-[0-9a-f]{16}$/;
export const CALL_ID = /^cal-[0-9a-f]{16}$/;
export const TASK_ID = /^tsk-[0-9a-f]{16}$/;
