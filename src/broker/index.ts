/**
 * Broker: a question is state with an id, a session and a deadline, answered once, stored through keyv.
 * Knows no wire and no surface.
 */
export type * from './types.js';
